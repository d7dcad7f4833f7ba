package telegram_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/speak"
	"github.com/untether/untether/speak/speaktest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// benchAnswer is a 1,000-character answer of plain prose (all of it is
// spoken: about 65 s of speech, under speak_max's 90 s).
var benchAnswer = func() string {
	const s = "The tests pass again after the change to the outbox, and the flaky one now waits for its server. "
	return strings.Repeat(s, 1000/len(s)+1)[:1000]
}()

// BenchmarkVoiceReplyDelay measures how long a voice note follows its
// answer's text: from the answer's sendMessage arriving at the fake Bot API
// (over loopback HTTP) to the sendVoice that replies to it, for a
// 1,000-character answer spoken by the local command, espeak-ng piped
// through opusenc. That is the text made for the ear, the synthesis, the
// Ogg check and the upload; the text itself is never held back for it.
//
// Metrics: p50_ms and max_ms of that delay; ns/op is a whole turn.
func BenchmarkVoiceReplyDelay(b *testing.B) {
	speaktest.NeedEspeak(b)
	tg := tgtest.New(b)
	user := tgtest.User{ID: 4242, FirstName: "Ada"}
	dm := tgtest.PrivateChat(user)
	eng := &fakeEngine{script: func(tr *enginetest.Turn) {
		tr.Start("m")
		tr.Complete(benchAnswer + " " + tr.Prompt)
	}}
	store, err := prefs.Open(context.Background(), filepath.Join(b.TempDir(), "state.db"), prefs.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	if err := store.SetSpeak(telegram.SessionKey(dm.ID, 0), "on"); err != nil {
		b.Fatal(err)
	}
	runBenchBot(b, tg, user, eng, store, func(c *telegram.Config) {
		c.Speak = telegram.Speak{Speaker: &speak.Command{Args: speaktest.Espeak}}
	})

	var delays []time.Duration
	for i := 0; b.Loop(); i++ {
		n := len(tg.CallsTo("sendVoice"))
		tg.SendMessage(user, dm, "run "+strings.Repeat("x", i%7+1))
		deadline := time.Now().Add(realWait)
		for len(tg.CallsTo("sendVoice")) == n {
			if time.Now().After(deadline) {
				b.Fatal("no voice note")
			}
			time.Sleep(time.Millisecond)
		}
		voice := tg.CallsTo("sendVoice")[n]
		text := lastCallBefore(tg.CallsTo("sendMessage"), voice.Time, func(c tgtest.Call) bool { return strings.HasPrefix(c.Param("text"), "The tests pass") })
		if voice.Status != 200 || text == nil {
			b.Fatalf("voice %d, answer %v", voice.Status, text)
		}
		delays = append(delays, voice.Time.Sub(text.Time))
	}
	b.StopTimer()
	slices.Sort(delays)
	b.ReportMetric(float64(delays[len(delays)/2])/float64(time.Millisecond), "p50_ms")
	b.ReportMetric(float64(delays[len(delays)-1])/float64(time.Millisecond), "max_ms")
}

// lastCallBefore is the last of calls before t that match.
func lastCallBefore(calls []tgtest.Call, t time.Time, match func(tgtest.Call) bool) *tgtest.Call {
	var found *tgtest.Call
	for i, c := range calls {
		if c.Time.Before(t) && match(c) {
			found = &calls[i]
		}
	}
	return found
}
