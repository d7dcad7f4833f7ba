package speak

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"
)

// The modes of voice replies, per conversation (/speak).
const (
	ModeOn   = "on"   // every final answer
	ModeOff  = "off"  // never
	ModeAuto = "auto" // answers to voice notes (the default)
)

// ValidMode says whether mode is one of the modes.
func ValidMode(mode string) bool { return mode == ModeOn || mode == ModeOff || mode == ModeAuto }

// Replier makes the voice notes of answers for any frontend: whether one
// is wanted (the conversation's mode, the failure guard), the text for the
// ear, the speech itself off the caller's path, at most a few at once.
type Replier struct {
	speaker  Speaker
	maxChars int
	redact   func(string) string
	log      *slog.Logger
	guard    Guard
	// slots bounds the syntheses at once across conversations: a speech
	// program takes a core while it runs, and the agent's turns need the
	// machine more.
	slots chan struct{}
}

// maxSpeaking is how many voice notes are made at once.
const maxSpeaking = 2

// NewReplier makes voice notes with speaker (nil: none), saying at most
// maxChars of an answer; redact is applied to what is said.
func NewReplier(speaker Speaker, maxChars int, redact func(string) string, log *slog.Logger) *Replier {
	return &Replier{speaker: speaker, maxChars: maxChars, redact: redact, log: log, slots: make(chan struct{}, maxSpeaking)}
}

// On says whether voice notes can be made at all.
func (r *Replier) On() bool { return r != nil && r.speaker != nil }

// Resume ends a pause of key's auto mode (it was asked for again).
func (r *Replier) Resume(key string) { r.guard.Succeeded(key) }

// Note is one voice note to make: the answer (the agent's Markdown) of
// conversation Key in Mode; Heard says its prompt was a recording.
// Deliver sends the audio; Paused is called when failures paused auto
// (the conversation is told once).
type Note struct {
	Key     string
	Mode    string
	Heard   bool
	Answer  string
	Deliver func(ctx context.Context, audio []byte, length time.Duration) error
	Paused  func()
}

// Follow makes n's voice note, when its mode wants one, on a goroutine of
// its own, until stop closes. It returns at once.
func (r *Replier) Follow(stop <-chan struct{}, n Note) {
	if !r.On() || strings.TrimSpace(n.Answer) == "" {
		return
	}
	switch {
	case n.Mode == ModeOn:
	case n.Mode == ModeAuto && n.Heard && !r.guard.Paused(n.Key):
	default:
		return
	}
	// The same redaction as every message, on what is said.
	script := r.redact(Script(n.Answer, r.maxChars))
	go r.say(stop, n, script)
}

// say makes and delivers one voice note. A failing backend is logged and
// counted (Guard); the conversation hears of it only when auto is paused.
func (r *Replier) say(stop <-chan struct{}, n Note, script string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	start := time.Now()
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
	case <-ctx.Done():
		return // the bot stops
	}
	audio, err := r.speaker.Speak(ctx, script)
	var length time.Duration
	if err == nil {
		// The backends check it too; a Speaker of another kind may not.
		// A frontend would show anything else as a broken note.
		length, err = Check(audio)
	}
	if err != nil {
		r.log.Warn("voice reply not made: the answer stays text only", "session_key", n.Key,
			"err", r.redact(err.Error()), "not_opus", errors.Is(err, ErrNotOpus))
		if r.guard.Failed(n.Key) {
			r.log.Warn("voice replies to voice notes paused after failures in a row", "session_key", n.Key,
				"failures", FailuresMax, "pause", PauseFor)
			n.Paused()
		}
		return
	}
	r.guard.Succeeded(n.Key)
	if err := n.Deliver(ctx, audio, length); err != nil {
		r.log.Warn("voice reply not delivered", "session_key", n.Key, "err", r.redact(err.Error()))
		return
	}
	r.log.Debug("voice reply sent", "session_key", n.Key, "bytes", len(audio), "took", time.Since(start))
}
