package telegram_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// fakeEar is a transcriber: it records what it was given (the recording's
// name and bytes, read from disk as a real backend would) and answers with
// text or err.
type fakeEar struct {
	mu    sync.Mutex
	text  string
	err   error
	heard []string // name:content
}

func (f *fakeEar) Transcribe(_ context.Context, path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.heard = append(f.heard, filepath.Base(path)+":"+string(data))
	return f.text, f.err
}

func (f *fakeEar) got() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.heard...)
}

func withEar(ear *fakeEar) harnessOpt {
	return func(c *telegram.Config) {
		c.Voice = telegram.Voice{Transcriber: ear, MaxDuration: time.Minute, MaxSize: 1000}
	}
}

// TestVoiceNoteRunsAsPrompt: a voice note is downloaded through getFile,
// transcribed, shown back ("🎙 …", replying to it) and run as the prompt;
// the recording is not kept.
func TestVoiceNoteRunsAsPrompt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ear := &fakeEar{text: " Make the build green. "}
		h := newHarness(t, echoScript, withEar(ear))
		id := h.tg.SendVoice(h.user, h.dm, []byte("OggS opus"), 4)
		heard := h.awaitText(h.dm.ID, "🎙 Make the build green.")
		if heard.ReplyTo != id || !strings.Contains(heard.Text, "/cancel if I misheard") {
			t.Errorf("heard %+v", heard)
		}
		h.awaitText(h.dm.ID, "Answer: Make the build green.")
		if got := ear.got(); len(got) != 1 || !strings.HasSuffix(got[0], "voice.ogg:OggS opus") {
			t.Errorf("transcribed %q", got)
		}
		if n := len(h.tg.CallsTo("getFile")); n != 1 {
			t.Errorf("%d getFile calls", n)
		}
		left, _ := filepath.Glob(filepath.Join(h.uploads, "*", "*"))
		if len(left) != 0 {
			t.Errorf("recordings kept: %q", left)
		}
		// Shown before Claude's answer.
		texts := strings.Join(h.messages(h.dm.ID), "\n")
		if strings.Index(texts, "🎙") > strings.Index(texts, "Answer:") {
			t.Errorf("order: %q", texts)
		}
	})
}

// An audio file's caption comes first; a video note is heard too.
func TestAudioAndVideoNote(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ear := &fakeEar{text: "the words"}
		h := newHarness(t, echoScript, withEar(ear))
		h.tg.SendAudio(h.user, h.dm, "memo.m4a", "audio/mp4", []byte("m4a"), 30, "Summarise this:")
		h.awaitText(h.dm.ID, "Answer: Summarise this:\n\nthe words")
		h.tg.SendVideoNote(h.user, h.dm, []byte("mp4"), 10)
		h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool {
			return strings.Count(m.Text, "Answer: the words") == 1 && !strings.Contains(m.Text, "Summarise")
		})
		got := ear.got()
		if len(got) != 2 || !strings.HasSuffix(got[0], "memo.m4a:m4a") || !strings.HasSuffix(got[1], "video_note.mp4:mp4") {
			t.Errorf("transcribed %q", got)
		}
	})
}

// Without a backend a voice note gets a one-line hint; over a limit it is
// refused with the limit; nothing runs.
func TestVoiceRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		h.tg.SendVoice(h.user, h.dm, []byte("x"), 3)
		h.awaitText(h.dm.ID, "I can't listen to voice messages yet: the owner can set up transcription in the [voice] section")

		ear := &fakeEar{text: "x"}
		h2 := newHarness(t, echoScript, withEar(ear))
		h2.tg.SendVoice(h2.user, h2.dm, []byte("x"), 61)
		h2.awaitText(h2.dm.ID, "That voice message is 2 minutes long; the limit is 1 minute.")
		h2.tg.SendVoice(h2.user, h2.dm, []byte("x"), 5, tgtest.FileSize(5000))
		h2.awaitText(h2.dm.ID, "That recording is 5 KB; the limit is 1000 B.")
		synctest.Wait()
		if len(h.eng.starts())+len(h2.eng.starts()) != 0 || len(ear.got()) != 0 {
			t.Errorf("something ran: %d %d %q", len(h.eng.starts()), len(h2.eng.starts()), ear.got())
		}
	})
}

// A failing backend's error is shown, redacted, and nothing runs; so for
// a recording without words.
func TestVoiceBackendFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const secret = "sk-voice-0123456789abcdef"
		ear := &fakeEar{err: errors.New("transcription API: HTTP 401: bad key " + secret)}
		h := newHarness(t, echoScript, withEar(ear), func(c *telegram.Config) { c.Secrets = []string{secret} })
		h.tg.SendVoice(h.user, h.dm, []byte("x"), 3)
		m := h.awaitText(h.dm.ID, "Could not transcribe your voice message")
		if !strings.Contains(m.Text, "HTTP 401: bad key [redacted]") || !strings.Contains(m.Text, "Nothing was run") {
			t.Errorf("error %q", m.Text)
		}
		ear.mu.Lock()
		ear.err, ear.text = nil, "   "
		ear.mu.Unlock()
		h.tg.SendVoice(h.user, h.dm, []byte("x"), 3)
		h.awaitText(h.dm.ID, "I heard no words in your voice message")
		synctest.Wait()
		if n := len(h.eng.starts()); n != 0 {
			t.Errorf("claude started %d times", n)
		}
		h.assertNoLeak(secret)
	})
}
