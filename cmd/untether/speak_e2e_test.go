package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/speak/speaktest"
	"github.com/untether/untether/telegram/tgtest"
)

// TestProcessSpeaksThroughCommand: the real bot answers a voice note with
// text, then with a voice note replying to it, made by [voice]
// speak_command (espeak-ng | opusenc): OGG/Opus of a plausible length.
// The command's environment holds none of the bot's secrets (the
// transcription key, a copy of the token).
func TestProcessSpeaksThroughCommand(t *testing.T) {
	speaktest.NeedEspeak(t)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"text": "Say that the deploy went well."})
	}))
	defer api.Close()
	const key = "sk-voice-test-0123456789"
	envFile := filepath.Join(t.TempDir(), "speak.env")
	tg := tgtest.New(t)
	env := append(fakeClaudeEnv("echo"), "UNTETHER_TEST_VOICE_KEY="+key, "TOKEN_COPY="+tg.Token())
	e := newE2EOn(t, tg, testExecutable(t), env, "", `
[voice]
api_url = "`+api.URL+`/v1"
api_key_env = "UNTETHER_TEST_VOICE_KEY"
model = "whisper-1"
speak_command = ["sh", "-c", "env > `+envFile+`; espeak-ng --stdout | opusenc --quiet - -"]
`)
	e.start(t)
	e.tg.SendVoice(e.user, e.chat, []byte("OggS a voice note"), 3)
	answer := e.tg.AwaitMessage(30*time.Second, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "echo: Say that the deploy went well.") })
	// A hang's bound: espeak-ng takes well under a second here.
	note := e.tg.AwaitMessage(2*time.Minute, e.chat.ID, func(m tgtest.Message) bool { return m.Voice != nil })
	if note.ReplyTo != answer.ID || note.ID < answer.ID {
		t.Errorf("voice note %d replies to %d, want after and to the answer %d", note.ID, note.ReplyTo, answer.ID)
	}
	data, _ := e.tg.FileData(note.Voice.FileID)
	if d, err := tgtest.OggOpus(data); err != nil || d < time.Second || d > 30*time.Second {
		t.Errorf("voice note: %v, %v", d, err)
	}
	got, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(got); strings.Contains(s, key) || strings.Contains(s, tg.Token()) || !strings.Contains(s, "PATH=") {
		t.Errorf("the speech command's environment:\n%s", s)
	}
}
