package web

import (
	"context"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/untether/untether/transcript"
)

// The conversation so far comes from the bot's turn log (package
// transcript): what scrolled away in Telegram, and what happened before the
// bot (and so the hub) started. The hub's entries add what happened since
// the log's last turn ended (the log writes a turn once it ends).

// EntryKind says what an Entry is.
type EntryKind int

const (
	EntryPrompt EntryKind = iota
	EntryAnswer
	EntryResolved
	EntryCancelled
	EntryFailed
)

// Entry is one thing said in a conversation the hub observed.
type Entry struct {
	Kind EntryKind
	Who  string // EntryPrompt: who typed it on the web ("": in the chat)
	Text string
	Tool string  // EntryResolved: the tool asked about
	Cost float64 // EntryAnswer: the turn's cost in USD
	// At is when the hub saw it: entries after the log's last turn are
	// the ones the log does not hold yet.
	At time.Time
	// queued: typed on the web, its turn not started yet.
	queued bool
}

// History is the conversation so far: *transcript.Log.
type History interface {
	Turns(ctx context.Context, key string) ([]transcript.Turn, error)
	Export(ctx context.Context, key string, f transcript.Format, now time.Time) (transcript.File, error)
}

// turnView is a logged turn as the chat page shows it.
type turnView struct {
	Prompt string
	Tools  []transcript.Tool
	Answer template.HTML // rendered Markdown, every text escaped
	Error  string
	Footer string
	When   string
}

// older is key's logged turns for the page, and when the last one ended
// (the hub's entries after it are not in the log yet).
func (s *Server) older(ctx context.Context, key string) ([]turnView, time.Time) {
	if s.cfg.History == nil {
		return nil, time.Time{}
	}
	turns, err := s.cfg.History.Turns(ctx, key)
	if err != nil {
		s.cfg.Log.Warn("web: could not read the conversation so far", "session_key", key, "err", err)
		return nil, time.Time{}
	}
	if len(turns) > maxEntries {
		turns = turns[len(turns)-maxEntries:]
	}
	red := s.cfg.Redactor.String
	out := make([]turnView, 0, len(turns))
	var last time.Time
	for _, t := range turns {
		tools := make([]transcript.Tool, len(t.Tools))
		for i, x := range t.Tools {
			x.Input = red(x.Input)
			tools[i] = x
		}
		out = append(out, turnView{Prompt: red(t.Prompt), Tools: tools, Answer: s.md.render(red(t.Answer)),
			Error: red(t.Error), Footer: transcript.Footer(t), When: t.Started.Local().Format("2006-01-02 15:04")})
		if t.Ended.After(last) {
			last = t.Ended
		}
	}
	return out, last
}

// export answers the conversation as a download: the same file as
// /export in Telegram (transcript.Log.Export), redacted once more here.
func (s *Server) export(w http.ResponseWriter, r *http.Request, sess *session) {
	key := r.PathValue("key")
	if _, ok := s.place(r.Context(), sess.userID, key); !ok || s.cfg.History == nil {
		s.message(w, http.StatusNotFound, pageNoChat)
		return
	}
	f, ok := transcript.ParseFormat(r.URL.Query().Get("format"))
	if !ok {
		s.message(w, http.StatusBadRequest, pageBadFormat)
		return
	}
	file, err := s.cfg.History.Export(r.Context(), key, f, s.cfg.Now())
	if err != nil {
		s.cfg.Log.Warn("web: could not export the conversation", "session_key", key, "err", err)
		s.message(w, http.StatusInternalServerError, pageNoExport)
		return
	}
	if file.Turns == 0 {
		s.message(w, http.StatusOK, pageNothingYet)
		return
	}
	ctype := "text/markdown; charset=utf-8"
	if f == transcript.JSON {
		ctype = "application/json"
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Disposition", `attachment; filename="`+strings.ReplaceAll(file.Name, `"`, "")+`"`)
	_, _ = w.Write([]byte(s.cfg.Redactor.String(string(file.Data))))
}
