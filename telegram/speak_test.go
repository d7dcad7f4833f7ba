package telegram_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/speak"
	"github.com/untether/untether/speak/speaktest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// realWait bounds a wait on real speech programs as a hang's, never by
// how fast a machine makes the audio.
const realWait = 2 * time.Minute

// fakeVoice is a Speaker: it records what it was asked to say and
// answers with audio or err.
type fakeVoice struct {
	mu    sync.Mutex
	audio []byte
	err   error
	said  []string
}

func (f *fakeVoice) Speak(_ context.Context, text string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.said = append(f.said, text)
	return f.audio, f.err
}

func (f *fakeVoice) got() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.said...)
}

func withSpeaker(s speak.Speaker) harnessOpt {
	return func(c *telegram.Config) { c.Speak = telegram.Speak{Speaker: s} }
}

// voicePrompt sends a voice note the fake ear hears as text, and waits
// for the answer's text.
func (h *harness) voicePrompt(text string, timeout time.Duration) tgtest.Message {
	h.t.Helper()
	after := h.tg.SendVoice(h.user, h.dm, []byte("OggS opus"), 2)
	return h.tg.AwaitMessage(timeout, h.dm.ID, func(m tgtest.Message) bool {
		return m.ID > after && strings.HasPrefix(m.Text, "Answer: "+text+"\n")
	})
}

// awaitVoice waits for the voice note replying to answer and returns its
// OGG/Opus length.
func (h *harness) awaitVoice(answer tgtest.Message, timeout time.Duration) time.Duration {
	h.t.Helper()
	m := h.tg.AwaitMessage(timeout, h.dm.ID, func(m tgtest.Message) bool { return m.Voice != nil && m.ReplyTo == answer.ID })
	data, _ := h.tg.FileData(m.Voice.FileID)
	d, err := tgtest.OggOpus(data)
	if err != nil {
		h.t.Fatalf("the voice note is not OGG/Opus: %v", err)
	}
	return d
}

const spokenAnswer = "The build is green again, and two flaky tests now wait for their server."

// TestVoiceReplyLocalCommand: a voice note's answer arrives as text, then
// as a voice note replying to it, made by espeak-ng | opusenc: OGG/Opus
// of a plausible length for the sentence.
func TestVoiceReplyLocalCommand(t *testing.T) {
	speaktest.NeedEspeak(t)
	h := newHarness(t, echoScript, withEar(&fakeEar{text: spokenAnswer}),
		withSpeaker(&speak.Command{Args: speaktest.Espeak}))
	answer := h.voicePrompt(spokenAnswer, realWait)
	if d := h.awaitVoice(answer, realWait); d < 2*time.Second || d > 20*time.Second {
		t.Errorf("voice note of %v for %d characters", d, len(spokenAnswer)+len("Answer: "))
	}
}

// TestVoiceReplyAPI: the same through the OpenAI-compatible API (a fake
// speech server on 127.0.0.1): it is asked to say the answer without its
// Markdown, and its OGG/Opus reaches Telegram as it is.
func TestVoiceReplyAPI(t *testing.T) {
	srv := speaktest.NewServer(t)
	h := newHarness(t, echoScript, withEar(&fakeEar{text: spokenAnswer}),
		withSpeaker(&speak.API{URL: srv.URL, Model: "tts-1", Voice: "alloy"}))
	answer := h.voicePrompt(spokenAnswer, realWait)
	if d := h.awaitVoice(answer, realWait); d < 2*time.Second {
		t.Errorf("voice note of %v", d)
	}
	if got := srv.Requests(); len(got) != 1 || got[0].Body["input"] != "Answer: "+spokenAnswer {
		t.Errorf("asked to say %+v", got)
	}
}

// TestSpeakModes: in auto (the default) a typed prompt gets no voice note
// and a voice note's answer does; /speak on speaks typed prompts' answers
// too, /speak off none; the choice is stored for the chat.
func TestSpeakModes(t *testing.T) {
	audio := speaktest.Say(t, "Hello.")
	synctest.Test(t, func(t *testing.T) {
		voice := &fakeVoice{audio: audio}
		h := newHarness(t, echoScript, withEar(&fakeEar{text: "spoken"}), withSpeaker(voice))
		key := telegram.SessionKey(h.dm.ID, 0)

		h.say("typed")
		h.awaitText(h.dm.ID, "Answer: typed")
		synctest.Wait()
		if n := len(h.tg.CallsTo("sendVoice")); n != 0 || len(voice.got()) != 0 {
			t.Fatalf("auto: a typed prompt got %d voice notes (%q)", n, voice.got())
		}
		answer := h.voicePrompt("spoken", wait)
		h.awaitVoice(answer, wait)

		h.say("/speak on")
		h.awaitText(h.dm.ID, "Voice replies: on (chat setting)")
		if p, _ := h.store.Prefs(key); p.Speak != "on" {
			t.Errorf("stored %q, want on", p.Speak)
		}
		h.say("/status")
		h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool {
			return strings.Contains(m.Text, "Streaming:") && strings.Contains(m.Text, "Voice replies: on (chat setting)")
		})
		h.say("typed again")
		answer = h.awaitText(h.dm.ID, "Answer: typed again")
		h.awaitVoice(answer, wait)

		h.say("/speak off")
		h.awaitText(h.dm.ID, "Voice replies: off (chat setting)")
		h.voicePrompt("spoken", wait) // a second answer of the same text
		synctest.Wait()
		if n := len(h.tg.CallsTo("sendVoice")); n != 2 {
			t.Errorf("%d voice notes, want 2 (auto's and on's)", n)
		}
		if p, _ := h.store.Prefs(key); p.Speak != "off" {
			t.Errorf("stored %q, want off", p.Speak)
		}
		h.say("/speak sometimes")
		h.awaitText(h.dm.ID, "Usage: /speak")
	})
}

// TestSpeakPersists: /speak's choice outlives the bot: a new process
// shows it and acts on it.
func TestSpeakPersists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		voice := &fakeVoice{err: errors.New("never asked")}
		h := newHarness(t, echoScript, withEar(&fakeEar{text: "spoken"}), withSpeaker(voice))
		h.say("/speak off")
		h.awaitText(h.dm.ID, "Voice replies: off (chat setting)")
		h.stop()
		h.start(withEar(&fakeEar{text: "spoken"}), withSpeaker(voice))
		h.say("/speak")
		h.awaitText(h.dm.ID, "Voice replies: off (chat setting). Answers come as text only.")
		h.voicePrompt("spoken", wait)
		synctest.Wait()
		if got := voice.got(); len(got) != 0 {
			t.Errorf("off after a restart, yet asked to say %q", got)
		}
	})
}

// TestSpeakFailureIsQuiet: a failing backend, or one that gives what is
// not OGG/Opus, leaves the text answer as it would be without voice
// replies and sends nothing broken; the log says why; three failures in a
// row pause auto in the chat for an hour, said once.
func TestSpeakFailureIsQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		voice := &fakeVoice{audio: []byte("ID3 an mp3, not opus")}
		h := newHarness(t, echoScript, withEar(&fakeEar{text: "spoken"}), withSpeaker(voice))
		first := h.voicePrompt("spoken", wait)
		synctest.Wait()
		if !strings.HasPrefix(first.Source, "<b>Answer:</b> spoken\n") || first.Edits != 0 {
			t.Errorf("the text answer changed: %+v", first)
		}
		if len(h.logs.lines("voice reply not made", "not OGG/Opus", "not_opus=true")) != 1 {
			t.Errorf("no clear log line for the refused audio:\n%s", strings.Join(h.logs.lines("voice"), "\n"))
		}
		voice.mu.Lock()
		voice.err = errors.New("speech backend down")
		voice.mu.Unlock()
		for range 2 {
			h.voicePrompt("spoken", wait)
			synctest.Wait()
		}
		if n := len(h.tg.CallsTo("sendVoice")); n != 0 {
			t.Errorf("%d voice notes sent from a failing backend", n)
		}
		paused := h.awaitText(h.dm.ID, "Voice replies failed 3 times in a row")
		if !strings.Contains(paused.Text, "for 1 hour") {
			t.Errorf("pause notice %q", paused.Text)
		}
		h.voicePrompt("spoken", wait)
		synctest.Wait()
		if n := len(voice.got()); n != 3 {
			t.Errorf("asked %d times, want 3: auto is paused after the third failure", n)
		}
		time.Sleep(speak.PauseFor)
		h.voicePrompt("spoken", wait)
		synctest.Wait()
		if n := len(voice.got()); n != 4 {
			t.Errorf("asked %d times, want 4: the pause ends after an hour", n)
		}
		var notices int
		for _, m := range h.tg.Messages(h.dm.ID) {
			if strings.Contains(m.Text, "Voice replies failed") {
				notices++
			}
		}
		if notices != 1 {
			t.Errorf("the pause was told %d times, want once", notices)
		}
	})
}
