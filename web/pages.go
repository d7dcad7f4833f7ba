package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/chat"
	"github.com/untether/untether/prefs"
)

const cookieName = "untether_session"

// signedIn runs h for a signed-in user who is still allowed; anyone else
// gets the page that says how to sign in.
func (s *Server) signedIn(h func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(cookieName)
		var sess *session
		if err == nil {
			sess, _ = s.auth.lookup(c.Value)
		}
		if sess == nil {
			s.message(w, http.StatusUnauthorized, pageSignedOut)
			return
		}
		if !s.cfg.Allowed(sess.userID) {
			s.auth.logout(sess.userID)
			s.message(w, http.StatusForbidden, pageNotAllowed)
			return
		}
		if r.Method == http.MethodPost && !sess.csrfOK(r.PostFormValue("csrf")) {
			s.message(w, http.StatusForbidden, pageBadCSRF)
			return
		}
		h(w, r, sess)
	}
}

// setSession gives the browser its session cookie: HttpOnly (no script
// reads it), SameSite=Strict (no other site's request carries it), Secure
// when the public address is https.
func (s *Server) setSession(w http.ResponseWriter, sess *session) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: sess.id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: strings.HasPrefix(s.cfg.PublicURL, "https://"),
		Expires: sess.until})
}

func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// loginPage answers a sign-in link. It uses nothing up: it answers 200
// with a page of this origin that posts the token back (by script, or the
// button). A Strict cookie set by a navigation from another site is not
// sent on a redirect that follows it, so the session is set by that
// same-origin post instead; and a link preview that fetches the link
// signs no one in.
func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	t := r.URL.Query().Get("t")
	if !s.auth.valid(t) {
		s.refuse(w, r, http.StatusGone, "web sign-in link refused")
		return
	}
	s.render(w, http.StatusOK, "login", map[string]any{"Token": t})
}

// loginPost uses the token up and starts the session.
func (s *Server) loginPost(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.auth.redeem(r.PostFormValue("t"))
	if !ok {
		s.refuse(w, r, http.StatusGone, "web sign-in link refused")
		return
	}
	if !s.cfg.Allowed(sess.userID) {
		s.auth.logout(sess.userID)
		s.message(w, http.StatusForbidden, pageNotAllowed)
		return
	}
	s.cfg.Log.Info("web sign-in by link", "user_id", sess.userID)
	s.setSession(w, sess)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// refuse answers a failed sign-in: code with its page (the Mini App's
// script reads only the status), or 429 once the failures are over the
// limit. A valid link or initData never gets here, so a stranger's
// guesses never lock its owner out (docs/web.md).
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, code int, what string, args ...any) {
	if !s.limit.fail(clientAddr(r)) {
		s.message(w, http.StatusTooManyRequests, pageTooMany)
		return
	}
	s.cfg.Log.Info(what, args...)
	s.message(w, code, map[int]string{http.StatusGone: pageLinkUsed, http.StatusForbidden: pageNotAllowed}[code])
}

// appPage is the Mini App's page: its script reads the launch data from
// the fragment (never sent to a server by the browser) and posts it.
func (s *Server) appPage(w http.ResponseWriter, _ *http.Request) {
	s.render(w, http.StatusOK, "app", nil)
}

// appPost checks a Mini App's launch data and starts a session.
func (s *Server) appPost(w http.ResponseWriter, r *http.Request) {
	u, err := checkInitData(r.PostFormValue("initData"), s.cfg.BotToken, s.cfg.Now())
	if err != nil || !s.cfg.Allowed(u.ID) {
		s.refuse(w, r, http.StatusForbidden, "web Mini App sign-in refused", "user_id", u.ID, "err", err)
		return
	}
	sess := s.auth.start(u.ID, u.FirstName)
	s.cfg.Log.Info("web sign-in by Mini App", "user_id", u.ID)
	s.setSession(w, sess)
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) logoutPost(w http.ResponseWriter, r *http.Request, sess *session) {
	s.auth.logout(sess.userID)
	http.SetCookie(w, &http.Cookie{Name: cookieName, Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	s.message(w, http.StatusOK, pageSignedOut)
}

// chatLink is one conversation on the home page.
type chatLink struct {
	Key, Title    string
	State         State
	Dir, Machine  string
	Engine, Model string
	Pending       []*approvals.Prompt
	PrivateChat   bool
}

// chats are the conversations userID may use, their private chat first.
func (s *Server) chats(ctx context.Context, sess *session) []chatLink {
	own := s.cfg.Key(sess.userID, 0)
	keys := []string{own}
	for _, g := range s.cfg.Groups {
		keys = append(keys, s.cfg.Key(g, 0))
	}
	for _, k := range s.hub.keys() {
		if v, _ := s.hub.view(k); !slices.Contains(keys, k) && s.mayUse(ctx, sess.userID, v.Place) {
			keys = append(keys, k)
		}
	}
	out := make([]chatLink, 0, len(keys))
	for _, k := range keys {
		p, ok := s.place(ctx, sess.userID, k)
		if !ok {
			continue
		}
		v, _ := s.hub.view(k)
		d := s.core.Describe(k)
		l := chatLink{Key: k, State: v.State, Dir: d.WorkDir, Engine: s.cfg.Engine, Model: d.Model,
			Pending: v.Prompts, PrivateChat: p.ChatID == sess.userID}
		if d.Machine != nil {
			l.Machine = d.Machine.Name
		}
		l.Title = s.title(ctx, sess, p)
		out = append(out, l)
	}
	return out
}

func (s *Server) title(ctx context.Context, sess *session, p chat.Place) string {
	t := ""
	switch {
	case p.ChatID == sess.userID:
		t = sess.name
	case s.cfg.Title != nil:
		t = s.cfg.Title(ctx, p.ChatID)
	}
	if t == "" {
		t = strconv.FormatInt(p.ChatID, 10)
	}
	if p.Thread != 0 {
		t += " · topic " + strconv.Itoa(p.Thread)
	}
	return t
}

func (s *Server) home(w http.ResponseWriter, r *http.Request, sess *session) {
	chats := s.chats(r.Context(), sess)
	var pending []pendingView
	for _, c := range chats {
		for _, p := range c.Pending {
			pending = append(pending, s.pendingView(c.Key, c.Title, p))
		}
	}
	s.render(w, http.StatusOK, "home", map[string]any{"Name": sess.name, "Chats": chats, "Pending": pending, "CSRF": sess.csrf})
}

// pendingView is a waiting request as a page shows it.
type pendingView struct {
	Key, Chat, RequestID string
	Tool, Input, Plan    string
	Question             bool
	Actions              []approvals.Action
}

func (s *Server) pendingView(key, title string, p *approvals.Prompt) pendingView {
	in := s.cfg.Redactor.String(prettyJSON(s.cfg.Redactor.JSON(p.Request.Input)))
	v := pendingView{Key: key, Chat: title, RequestID: p.Request.RequestID, Tool: p.Request.ToolName, Input: in,
		Plan: s.cfg.Redactor.String(p.Plan), Question: p.Kind == approvals.KindQuestion}
	if !v.Question {
		v.Actions = p.Actions
	}
	return v
}

// press answers a waiting request as the Telegram buttons would.
func (s *Server) press(w http.ResponseWriter, r *http.Request, sess *session) {
	key := r.PathValue("key")
	p, ok := s.place(r.Context(), sess.userID, key)
	if !ok {
		s.message(w, http.StatusNotFound, pageNoChat)
		return
	}
	if !s.cfg.MayApprove(sess.userID, p.ChatID) {
		s.message(w, http.StatusForbidden, pageNotApprover)
		return
	}
	pr, ok := s.hub.prompt(key, r.PostFormValue("request"))
	kind := approvals.ActionKind(r.PostFormValue("action"))
	i := -1
	if ok {
		i = slices.IndexFunc(pr.Actions, func(a approvals.Action) bool { return a.Kind == kind })
	}
	if i < 0 {
		s.message(w, http.StatusConflict, pageAnswered)
		return
	}
	_, err := s.core.PressElsewhere(r.Context(), pr.Actions[i].Token, sess.userID, pr.Request.ChatID, sess.name, approvals.SourceWeb)
	if err != nil {
		s.cfg.Log.Info("web press refused", "chat_id", p.ChatID, "user_id", sess.userID, "err", err)
		s.message(w, http.StatusConflict, pageAnswered)
		return
	}
	http.Redirect(w, r, "/chat/"+key, http.StatusSeeOther)
}

// prompt sends a message to the conversation as if typed in its chat: it
// is stored first, then the core runs it; the chat shows it (with who
// typed it on the web) and its answer.
func (s *Server) prompt(w http.ResponseWriter, r *http.Request, sess *session) {
	key := r.PathValue("key")
	p, ok := s.place(r.Context(), sess.userID, key)
	if !ok {
		s.message(w, http.StatusNotFound, pageNoChat)
		return
	}
	text := strings.TrimSpace(r.PostFormValue("text"))
	if text == "" || len(text) > maxPrompt {
		s.message(w, http.StatusBadRequest, pageBadPrompt)
		return
	}
	qp := prefs.Prompt{ChatID: p.ChatID, ThreadID: p.Thread, UserID: sess.userID, Text: text, Date: s.cfg.Now(),
		Origin: &prefs.Origin{Kind: prefs.OriginWeb, Label: sess.name}}
	seq, err := s.cfg.Store.EnqueueWebPrompt(key, qp)
	if err != nil {
		s.cfg.Log.Error("web prompt not stored", "chat_id", p.ChatID, "err", err)
		s.message(w, http.StatusInternalServerError, pageNotSent)
		return
	}
	s.hub.prompted(key, p, sess.name, text)
	s.core.Submit(key, p, prefs.QueuedPrompt{Key: key, Seq: seq, Prompt: qp})
	http.Redirect(w, r, "/chat/"+key, http.StatusSeeOther)
}

// prettyJSON indents raw for reading, its strings as they are: JSON's
// HTML escapes (\u0026 for &) would show another command than the one
// to approve; the page's template escapes the text. Decoded escapes can
// spell a secret, so the caller redacts the result again.
func prettyJSON(raw json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if enc.Encode(v) != nil {
		return string(raw)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
