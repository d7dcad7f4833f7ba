package telegram

import (
	"context"
	"strings"
	"sync"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/telegram/outbox"

	"github.com/untether/untether/telegram/render"
	"github.com/untether/untether/telegram/view"
)

// Who may answer approval prompts (tool approvals, plans, questions) in a
// group: [telegram] approver_user_ids, or everyone allowed when that is
// empty. Private chats have one user, who always may. The check runs when
// a press (or a typed answer) is handled, after the allowlist's: an
// approver who is not allowed still cannot answer.

// approverBook holds the approvers and the names the bot last saw them by,
// so that a prompt and a toast can name them.
type approverBook struct {
	order []int64
	ids   map[int64]bool

	mu    sync.Mutex
	names map[int64]string
}

func newApprovers(ids []int64) *approverBook {
	ab := &approverBook{ids: map[int64]bool{}, names: map[int64]string{}}
	for _, id := range ids {
		if !ab.ids[id] {
			ab.ids[id] = true
			ab.order = append(ab.order, id)
		}
	}
	return ab
}

// mayApprove says whether userID may answer a prompt in chatID. The caller
// has checked the allowlist.
func (ab *approverBook) mayApprove(userID, chatID int64) bool {
	return !isGroup(chatID) || len(ab.ids) == 0 || ab.ids[userID]
}

// learnName remembers how an approver is called, from a message or press.
func (ab *approverBook) learnName(u *models.User) {
	if u == nil || !ab.ids[u.ID] {
		return
	}
	name := displayName(u)
	ab.mu.Lock()
	defer ab.mu.Unlock()
	ab.names[u.ID] = name
}

// list is the approvers with the names known so far, in the
// configured order.
func (ab *approverBook) list() []view.Approver {
	ab.mu.Lock()
	defer ab.mu.Unlock()
	out := make([]view.Approver, len(ab.order))
	for i, id := range ab.order {
		out[i] = view.Approver{ID: id, Name: ab.names[id]}
	}
	return out
}

// withApprovers adds, in a group with approvers, the line that names them
// to the last part of a prompt, when it fits (the toast explains a refused
// press anyway).
func (ab *approverBook) withApprovers(chatID int64, parts []string) []string {
	if !isGroup(chatID) || len(ab.ids) == 0 || len(parts) == 0 {
		return parts
	}
	last := parts[len(parts)-1] + "\n\n" + view.ApproversLine(ab.list())
	if !render.Fits(last, render.Limits{Source: view.MaxMessage}) {
		return parts
	}
	out := append([]string(nil), parts...)
	out[len(out)-1] = last
	return out
}

// learn asks Telegram, in the outbox's background, how each
// approver is called: their private chat with the bot (getChat), which
// exists once they started it. Until then, or when it does not, a prompt
// names them by id; a message or press of theirs teaches the name too.
func (ab *approverBook) learn(api *tgAPI) {
	for _, id := range ab.order {
		api.out.Enqueue(outbox.Job{Unpaced: true, Priority: outbox.Low, Do: func(ctx context.Context) error {
			c, err := api.client.GetChat(ctx, &tgbot.GetChatParams{ChatID: id})
			if err != nil {
				api.log.Debug("could not learn an approver's name", "user_id", id, "err", api.wrap("getChat", err))
				return nil // a name is a nicety: never retried
			}
			name := strings.TrimSpace(c.FirstName + " " + c.LastName)
			if c.Username != "" {
				name = "@" + c.Username
			}
			if name != "" {
				ab.mu.Lock()
				if ab.names[id] == "" {
					ab.names[id] = name
				}
				ab.mu.Unlock()
			}
			return nil
		}})
	}
}
