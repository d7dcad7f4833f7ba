package web

import "context"

// The conversation so far. Today the page shows what the web observed
// since the bot started (the hub's entries); a log of each conversation's
// turns (prompt, answer, tools, cost) plugs in here when it exists, so
// that the page shows what scrolled away in Telegram too.

// EntryKind says what an Entry is.
type EntryKind int

const (
	EntryPrompt EntryKind = iota
	EntryAnswer
	EntryResolved
	EntryCancelled
	EntryFailed
)

// Entry is one thing said in a conversation.
type Entry struct {
	Kind EntryKind
	Who  string // EntryPrompt: who typed it
	Text string
	Tool string  // EntryResolved: the tool asked about
	Cost float64 // EntryAnswer: the turn's cost in USD
}

// History is the conversation so far, older than what the page observed.
type History interface {
	// Entries are key's last entries, at most max, oldest first.
	Entries(ctx context.Context, key string, max int) ([]Entry, error)
}
