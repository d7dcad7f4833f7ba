package speak_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/speak"
	"github.com/untether/untether/speak/speaktest"
)

const sentence = "The build is green again. Two tests were flaky and now wait for the server."

// plausible: espeak-ng says the sentence in a few seconds.
func plausible(t *testing.T, d time.Duration) {
	t.Helper()
	if d < 2*time.Second || d > 15*time.Second {
		t.Errorf("duration %v, want a few seconds for %d characters", d, len(sentence))
	}
}

// TestCommandEspeak: the local command (espeak-ng | opusenc) gets the
// text on stdin and its OGG/Opus comes back, of a plausible length; the
// command sees only the environment it is given.
func TestCommandEspeak(t *testing.T) {
	speaktest.NeedEspeak(t)
	c := &speak.Command{Args: speaktest.Espeak, Env: []string{"PATH=" + os.Getenv("PATH")}}
	audio, err := c.Speak(context.Background(), sentence)
	if err != nil {
		t.Fatal(err)
	}
	d, err := speak.Check(audio)
	if err != nil {
		t.Fatal(err)
	}
	plausible(t, d)
}

// TestCommandEnv: the command's environment is Env, nothing more (the
// bot passes its own without its secrets).
func TestCommandEnv(t *testing.T) {
	t.Setenv("UNTETHER_SPEAK_SECRET", "sk-should-not-pass")
	c := &speak.Command{Args: []string{"sh", "-c", "env >&2; exit 3"}, Env: []string{"PATH=/usr/bin:/bin", "ONLY=this"}}
	_, err := c.Speak(context.Background(), "x")
	if err == nil || !strings.Contains(err.Error(), "ONLY=this") || strings.Contains(err.Error(), "sk-should-not-pass") {
		t.Errorf("err = %v, want the command's stderr with ONLY=this and no secret", err)
	}
}

// TestCommandRefusesWhatIsNotOpus: a command that writes WAV (espeak-ng
// without opusenc) or text is refused with ErrNotOpus, as is a failing
// or hanging one with its reason.
func TestCommandRefusesWhatIsNotOpus(t *testing.T) {
	for name, args := range map[string][]string{
		"text": {"sh", "-c", "cat"},
		"wav":  {"sh", "-c", "printf 'RIFF\\0\\0\\0\\0WAVEfmt '"},
	} {
		_, err := (&speak.Command{Args: args}).Speak(context.Background(), "hello there")
		if !errors.Is(err, speak.ErrNotOpus) {
			t.Errorf("%s: err = %v, want ErrNotOpus", name, err)
		}
	}
	_, err := (&speak.Command{Args: []string{"sh", "-c", "echo no voice >&2; exit 1"}}).Speak(context.Background(), "x")
	if err == nil || !strings.Contains(err.Error(), "no voice") {
		t.Errorf("a failing command: err = %v, want its stderr", err)
	}
	// The timeout is far below the command's sleep: only a command that
	// is not stopped would take the minute.
	_, err = (&speak.Command{Args: []string{"sh", "-c", "sleep 60"}, Timeout: 200 * time.Millisecond}).Speak(context.Background(), "x")
	if err == nil || !strings.Contains(err.Error(), "stopped after") {
		t.Errorf("a hanging command: err = %v, want stopped after the timeout", err)
	}
}

// TestAPI: the request is OpenAI's (POST /audio/speech, Bearer key, JSON
// with model, voice, input and response_format opus) and the OGG/Opus
// answer comes back as it is.
func TestAPI(t *testing.T) {
	srv := speaktest.NewServer(t)
	a := &speak.API{URL: srv.URL + "/", Key: "sk-test-speech-key", Model: "tts-1", Voice: "alloy"}
	audio, err := a.Speak(context.Background(), sentence)
	if err != nil {
		t.Fatal(err)
	}
	d, err := speak.Check(audio)
	if err != nil {
		t.Fatal(err)
	}
	plausible(t, d)
	got := srv.Requests()
	if len(got) != 1 {
		t.Fatalf("%d requests", len(got))
	}
	r := got[0]
	if r.Path != "/v1/audio/speech" || r.Auth != "Bearer sk-test-speech-key" || r.Body["model"] != "tts-1" ||
		r.Body["voice"] != "alloy" || r.Body["input"] != sentence || r.Body["response_format"] != "opus" {
		t.Errorf("request %+v", r)
	}
}

// TestAPIRefusals: a body that is not Ogg (MP3, JSON, nothing) is refused
// as ErrNotOpus; an HTTP error carries the API's message.
func TestAPIRefusals(t *testing.T) {
	srv := speaktest.NewServer(t)
	a := &speak.API{URL: srv.URL, Model: "tts-1", Voice: "alloy"}
	for name, body := range map[string][]byte{
		"mp3":              []byte("ID3\x04\x00\x00\x00\x00\x00\x00 mpeg frames"),
		"empty":            nil,
		"ogg but not opus": append([]byte("OggS\x00\x02"), make([]byte, 21)...),
	} {
		srv.SetAnswer(func(speaktest.Request) (int, []byte) { return http.StatusOK, body })
		if _, err := a.Speak(context.Background(), "hi"); !errors.Is(err, speak.ErrNotOpus) {
			t.Errorf("%s: err = %v, want ErrNotOpus", name, err)
		}
	}
	srv.SetAnswer(func(speaktest.Request) (int, []byte) {
		return http.StatusTooManyRequests, []byte(`{"error":{"message":"quota exceeded"}}`)
	})
	if _, err := a.Speak(context.Background(), "hi"); err == nil || !strings.Contains(err.Error(), "HTTP 429: quota exceeded") {
		t.Errorf("err = %v, want HTTP 429 with the message", err)
	}
}

// TestCheckTruncated: OGG/Opus cut anywhere but between pages is refused.
func TestCheckTruncated(t *testing.T) {
	audio := speaktest.Say(t, sentence)
	if _, err := speak.Check(audio); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{10, 40, len(audio) - 7} {
		if _, err := speak.Check(audio[:n]); !errors.Is(err, speak.ErrNotOpus) {
			t.Errorf("cut at %d: err = %v, want ErrNotOpus", n, err)
		}
	}
}
