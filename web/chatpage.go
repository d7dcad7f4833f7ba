package web

import (
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The chat page: the conversation so far (the log's turns), then the live
// part (what the hub saw since the log's last turn, the running turn, its
// pending approvals), which server-sent events refresh.

// entryView is a hub entry as the page shows it.
type entryView struct {
	Entry
	Answer template.HTML // EntryAnswer: rendered Markdown
}

// liveView is the part of the chat page the events refresh: entries after
// since (the end of the log's last turn) are shown.
func (s *Server) liveView(key, title, csrf string, since time.Time) map[string]any {
	v, _ := s.hub.view(key)
	red := s.cfg.Redactor
	pending := make([]pendingView, 0, len(v.Prompts))
	for _, p := range v.Prompts {
		pending = append(pending, s.pendingView(key, title, p))
	}
	entries := make([]entryView, 0, len(v.Entries))
	for _, e := range v.Entries {
		if !e.At.After(since) {
			continue
		}
		e.Text = red.String(e.Text)
		ev := entryView{Entry: e}
		if e.Kind == EntryAnswer {
			ev.Answer = s.md.render(e.Text)
		}
		entries = append(entries, ev)
	}
	actions := make([]string, 0, len(v.Actions))
	for _, a := range v.Actions {
		actions = append(actions, red.String(a.Title))
	}
	return map[string]any{"Key": key, "CSRF": csrf, "State": v.State, "Phase": string(v.Phase), "Actions": actions,
		"Stream": red.String(v.Stream), "Pending": pending, "Entries": entries}
}

func (s *Server) chatPage(w http.ResponseWriter, r *http.Request, sess *session) {
	key := r.PathValue("key")
	p, ok := s.place(r.Context(), sess.userID, key)
	if !ok {
		s.message(w, http.StatusNotFound, pageNoChat)
		return
	}
	title := s.title(r.Context(), sess, p)
	older, since := s.older(r.Context(), key)
	s.render(w, http.StatusOK, "chat", map[string]any{"Title": title, "Key": key, "CSRF": sess.csrf,
		"Older": older, "Since": since.UnixNano(), "Export": s.cfg.History != nil,
		"Money": s.money(key), "Schedules": s.schedules(key),
		"Live": s.liveView(key, title, sess.csrf, since)})
}

// chatEvents streams the live part of the chat page (server-sent events):
// a fresh rendering after each of the conversation's events, coalesced
// while the page is slow to take them.
func (s *Server) chatEvents(w http.ResponseWriter, r *http.Request, sess *session) {
	key := r.PathValue("key")
	p, ok := s.place(r.Context(), sess.userID, key)
	if !ok {
		http.NotFound(w, r)
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	var since time.Time
	if n, err := strconv.ParseInt(r.URL.Query().Get("since"), 10, 64); err == nil && n > 0 {
		since = time.Unix(0, n)
	}
	wake, stop := s.hub.subscribe(key)
	defer stop()
	w.Header().Set("Content-Type", "text/event-stream")
	title := s.title(r.Context(), sess, p)
	tick := time.NewTicker(30 * time.Second) // keeps proxies from closing a quiet stream
	defer tick.Stop()
	for {
		// Each message is a response of its own: a session ended (/web
		// logout, expiry), a user removed or one who left the group gets
		// no more of it.
		if _, ok := s.auth.lookup(sess.id); !ok || !s.cfg.Allowed(sess.userID) || !s.mayUse(r.Context(), sess.userID, p) {
			return
		}
		var b strings.Builder
		if err := pages.ExecuteTemplate(&b, "live", s.liveView(key, title, sess.csrf, since)); err != nil {
			s.cfg.Log.Warn("web: live view", "err", err)
			return
		}
		// The event stream ends a line at CR, LF or CRLF: a CR in the
		// conversation's text would start a field of its own ("event:"
		// hides the message from the page). HTML reads a CR as a LF anyway.
		for line := range strings.SplitSeq(sseNewlines.Replace(b.String()), "\n") {
			fmt.Fprintf(w, "data: %s\n", line)
		}
		fmt.Fprint(w, "\n")
		fl.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-wake:
		case <-tick.C:
		}
	}
}

// sseNewlines turns every line ending an event stream knows into LF.
var sseNewlines = strings.NewReplacer("\r\n", "\n", "\r", "\n")
