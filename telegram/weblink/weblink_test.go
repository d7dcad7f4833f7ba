package weblink

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/telegram/view"
)

type fakeLogins struct{ minted, loggedOut int }

func (f *fakeLogins) LoginURL(int64, string) (string, error) {
	f.minted++
	return "https://bot.example/login?t=secret-token", nil
}
func (f *fakeLogins) Logout(int64) int  { f.loggedOut++; return 2 }
func (f *fakeLogins) AppURL() string    { return "https://bot.example/app" }
func (f *fakeLogins) LoginMinutes() int { return 10 }

type sent struct {
	text string
	kb   view.Keyboard
}

type fakeOut struct{ got []sent }

func (o *fakeOut) Send(_ context.Context, _ chat.Place, _ int, text string, kb view.Keyboard) {
	o.got = append(o.got, sent{text, kb})
}

func run(l Logins, c Call) (*fakeOut, string) {
	out := &fakeOut{}
	Command{Logins: l, Out: out, Log: slog.New(slog.DiscardHandler)}.Run(context.Background(), c)
	if len(out.got) != 1 {
		return out, ""
	}
	return out, out.got[0].text
}

func TestWebCommand(t *testing.T) {
	alice := &models.User{ID: 42, FirstName: "Alice"}
	t.Run("a group gets no link", func(t *testing.T) {
		l := &fakeLogins{}
		out, text := run(l, Call{Place: chat.Place{ChatID: -100}, From: alice, Group: true})
		if text != view.WebInGroup || l.minted != 0 || out.got[0].kb != nil {
			t.Errorf("in a group: %q, %d links minted, keyboard %v", text, l.minted, out.got[0].kb)
		}
		// Nor a private chat that is not the sender's (a channel's post, a topic of another's).
		if _, text := run(l, Call{Place: chat.Place{ChatID: 7}, From: alice}); text != view.WebInGroup || l.minted != 0 {
			t.Errorf("another's private chat: %q, %d minted", text, l.minted)
		}
	})
	t.Run("the private chat gets a link and the Mini App", func(t *testing.T) {
		l := &fakeLogins{}
		out, text := run(l, Call{Place: chat.Place{ChatID: 42}, From: alice})
		if l.minted != 1 || !strings.Contains(text, "login?t=secret-token") || len(out.got[0].kb) != 1 ||
			out.got[0].kb[0][0].WebApp != "https://bot.example/app" {
			t.Errorf("private: %q %+v", text, out.got[0].kb)
		}
	})
	t.Run("logout ends the sessions", func(t *testing.T) {
		l := &fakeLogins{}
		if _, text := run(l, Call{Place: chat.Place{ChatID: 42}, From: alice, Args: " Logout "}); l.loggedOut != 1 ||
			text != view.WebLoggedOut(2) || l.minted != 0 {
			t.Errorf("logout: %q, logged out %d, minted %d", text, l.loggedOut, l.minted)
		}
	})
	t.Run("off without a server", func(t *testing.T) {
		if _, text := run(nil, Call{Place: chat.Place{ChatID: 42}, From: alice}); text != view.WebOff {
			t.Errorf("off: %q", text)
		}
	})
}
