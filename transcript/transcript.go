// Package transcript is a durable log of each conversation's turns, kept in
// the bot's state file (prefs): the prompt as its sender wrote it, the
// answer, the tools the turn ran in short (kind and short input, as the
// progress lines show them), cost and tokens, when, and how it ended. A
// Recorder fills it from the conversation core as an Observer
// (chat.Core.Watch); Log.Turns reads it back, for /export and the web view.
//
// Bounds: a conversation keeps its last MaxTurns turns within MaxBytes (the
// oldest go first; prefs.AppendTranscript); a turn's prompt, answer and
// error keep their first MaxText bytes each, and its first MaxTools tools.
//
// Every text is redacted with the bot's redactor when recorded and again
// when read: the log holds no secret the chats would not show.
package transcript

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/redact"
)

// The bounds of a transcript (see the package comment).
const (
	MaxTurns = 200
	MaxBytes = 2 << 20
	MaxText  = 64 << 10
	MaxTools = 200
)

// Outcome is how a turn ended, in the transcript's own words (they are
// the JSON export's too).
type Outcome string

const (
	Done       Outcome = "done"        // answered
	BudgetStop Outcome = "budget_stop" // stopped at the per-turn spending cap
	LimitStop  Outcome = "limit_stop"  // stopped at a usage limit
	Refused    Outcome = "refused"     // not run: today's spend reached the daily budget
	Failed     Outcome = "failed"      // failed (Error says why)
	Cancelled  Outcome = "cancelled"   // cancelled by the user
	Stopped    Outcome = "stopped"     // the bot stopped before the turn ended
)

// Tool is one tool call of a turn, in short.
type Tool struct {
	Kind   string `json:"kind"`  // toolkinds' kind: command, file_change, tool, …
	Input  string `json:"input"` // its short title (the command, the file)
	Failed bool   `json:"failed,omitempty"`
}

// Turn is one turn of a conversation.
type Turn struct {
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	Prompt  string    `json:"prompt"`
	Answer  string    `json:"answer,omitempty"`
	Tools   []Tool    `json:"tools,omitempty"`
	CostUSD float64   `json:"cost_usd,omitempty"`
	// InTokens counts cache reads and writes too, as the footer does.
	InTokens  int     `json:"in_tokens,omitempty"`
	OutTokens int     `json:"out_tokens,omitempty"`
	Outcome   Outcome `json:"outcome"`
	Error     string  `json:"error,omitempty"`
	// RanAnyway: the owner ran it past a spending limit ("Run anyway").
	RanAnyway bool `json:"ran_anyway,omitempty"`
}

// Log is the transcripts in the state file.
type Log struct {
	store    *prefs.Store
	redactor *redact.Redactor
}

// New is the transcripts of store, redacted with redactor (the one the
// bot's messages go through).
func New(store *prefs.Store, redactor *redact.Redactor) *Log {
	return &Log{store: store, redactor: redactor}
}

// Turns is conversation key's transcript, oldest turn first; a record that
// does not decode is skipped.
func (l *Log) Turns(ctx context.Context, key string) ([]Turn, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read the transcript: %w", err)
	}
	recs, err := l.store.Transcript(key)
	if err != nil {
		return nil, err
	}
	turns := make([]Turn, 0, len(recs))
	for _, r := range recs {
		var t Turn
		if json.Unmarshal(r, &t) != nil {
			continue
		}
		turns = append(turns, l.redacted(t))
	}
	return turns, nil
}

// append records t as the newest turn of key.
func (l *Log) append(key string, t Turn) error {
	t = l.redacted(t)
	t.Prompt, t.Answer, t.Error = cut(t.Prompt), cut(t.Answer), cut(t.Error)
	if len(t.Tools) > MaxTools {
		t.Tools = t.Tools[:MaxTools]
	}
	rec, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("encode a turn of %q: %w", key, err)
	}
	return l.store.AppendTranscript(key, rec, prefs.TranscriptLimits{Turns: MaxTurns, Bytes: MaxBytes})
}

// redacted is t with every text redacted.
func (l *Log) redacted(t Turn) Turn {
	r := l.redactor.String
	t.Prompt, t.Answer, t.Error = r(t.Prompt), r(t.Answer), r(t.Error)
	tools := make([]Tool, len(t.Tools))
	for i, x := range t.Tools {
		x.Input = r(x.Input)
		tools[i] = x
	}
	if len(tools) > 0 {
		t.Tools = tools
	}
	return t
}

// cut keeps the first MaxText bytes of s, whole characters, marked.
func cut(s string) string {
	if len(s) <= MaxText {
		return s
	}
	s = s[:MaxText]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + " …[cut]"
}
