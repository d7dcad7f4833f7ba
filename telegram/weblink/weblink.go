// Package weblink is the Telegram side of the web view: the /web command,
// which gives an allowed user a one-time sign-in link in their private chat
// (and, with an https public address, a button that opens the view as a
// Mini App), or ends their web sessions. The web server (package web)
// issues the links; this package only says them, in telegram/view's words.
package weblink

import (
	"context"
	"log/slog"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/telegram/view"
)

// Logins is the web server's side: it mints a link bound to a user,
// ends a user's sessions, and names the Mini App's address.
type Logins interface {
	// LoginURL is a one-time sign-in link for userID, who is called name.
	LoginURL(userID int64, name string) (string, error)
	// Logout ends every web session of userID and says how many.
	Logout(userID int64) int
	// AppURL is the Mini App's https address, "" when there is none.
	AppURL() string
	// LoginMinutes is how long a link is valid.
	LoginMinutes() int
}

// Out sends a message (the bot's sender).
type Out interface {
	Send(ctx context.Context, p chat.Place, replyTo int, text string, kb view.Keyboard)
}

// Command answers /web.
type Command struct {
	Logins Logins // nil: the web view is off
	Out    Out
	Log    *slog.Logger
}

// Call is one /web: where, from whom, with which arguments.
type Call struct {
	Place chat.Place
	MsgID int
	From  *models.User // nil: no sender (a channel's post)
	Group bool
	Args  string
}

// Run answers c. In a group it posts no link: the link signs in whoever
// opens it first.
func (cmd Command) Run(ctx context.Context, c Call) {
	var userID int64
	var name string
	if c.From != nil {
		userID, name = c.From.ID, c.From.FirstName
	}
	say := func(text string, kb view.Keyboard) { cmd.Out.Send(ctx, c.Place, c.MsgID, text, kb) }
	switch {
	case cmd.Logins == nil:
		say(view.WebOff, nil)
	case c.Group || userID == 0 || c.Place.ChatID != userID:
		say(view.WebInGroup, nil)
	case strings.EqualFold(strings.TrimSpace(c.Args), "logout"):
		say(view.WebLoggedOut(cmd.Logins.Logout(userID)), nil)
	case strings.TrimSpace(c.Args) != "":
		say(view.WebUsage, nil)
	default:
		url, err := cmd.Logins.LoginURL(userID, name)
		if err != nil {
			cmd.Log.Warn("could not make a web sign-in link", "chat_id", c.Place.ChatID, "err", err)
			say(view.WebFailed, nil)
			return
		}
		var kb view.Keyboard
		if app := cmd.Logins.AppURL(); app != "" {
			kb = view.Keyboard{{{Text: view.WebAppButton, WebApp: app}}}
		}
		say(view.WebLink(url, cmd.Logins.LoginMinutes()), kb)
	}
}
