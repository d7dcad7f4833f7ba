package web

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"

	"github.com/untether/untether/human"
)

// Every text a user reads on the web is here and in assets/*.html: the
// web's own view, rendered by html/template (every value escaped).

//go:embed assets
var assets embed.FS

// staticFS is what /static/ serves: the script and the style sheet.
var staticFS, _ = fs.Sub(assets, "assets/static")

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"stateText": func(s State) string {
		switch s {
		case Working:
			return "working"
		case WaitingApproval:
			return "waiting for approval"
		}
		return "idle"
	},
	"dict": func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	},
	"usd": human.Dollars,
	"mod": func(a, b int) int { return a % b },
}).ParseFS(assets, "assets/*.html"))

// The one-paragraph pages.
const (
	pageSignedOut   = "You are not signed in. Send /web to the bot in your private chat for a sign-in link, or open the bot's Mini App."
	pageNotAllowed  = "Not allowed: this Telegram account may not use this bot."
	pageBadCSRF     = "This form is out of date (its security token does not match). Go back, reload the page and try again."
	pageLinkUsed    = "This sign-in link was used already or has expired. Send /web to the bot for a new one."
	pageTooMany     = "Too many sign-in attempts. Wait a minute and try again."
	pageNoChat      = "No such chat here."
	pageNotApprover = "You may not answer approval requests in this chat."
	pageAnswered    = "This request was answered already, timed out or was cancelled."
	pageBadPrompt   = "The message is empty or too long."
	pageNotSent     = "The message could not be stored; nothing was sent. Try again."
	pageBadFormat   = "Ask for the conversation as md or json."
	pageNoExport    = "The conversation could not be exported: see the bot's log."
	pageNothingYet  = "Nothing to download yet: no turn of this chat is recorded."
	pageGitFailed   = "git could not tell the changes: see the bot's log."
)

// message answers with a page of one paragraph.
func (s *Server) message(w http.ResponseWriter, status int, text string) {
	s.render(w, status, "message", map[string]any{"Text": text})
}

func (s *Server) render(w http.ResponseWriter, status int, name string, data any) {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		s.cfg.Log.Error("web: render", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}
