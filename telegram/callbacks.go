package telegram

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/control"
	"github.com/untether/untether/telegram/engines"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
	"github.com/untether/untether/token"
)

// Button presses: every kind of button the bot shows, the callback data
// that names it, and where a press goes. Presses run outside every turn
// queue (see handlePress for the gate before them): a turn waiting for
// approval must never block the press that approves it.

// Callback data is a prefix and a token: "a:" approval buttons (tokens
// minted by the broker), "c:" the Cancel button of a progress message (and
// of a stall question), "s:" the buttons of a /sessions list and "k:" the
// Keep waiting button of a stall question (tokens minted here).
const (
	prefixApproval = "a:"
	prefixCancel   = "c:"
	prefixSession  = "s:"
	prefixKeep     = "k:"
	prefixTopic    = "t:" // a /cwd answer's "open a topic" button (topics.go)
)

// cancelData is the callback data of a turn's Cancel button.
func cancelData(tok string) string { return prefixCancel + tok }

// handleCallback answers a button press, by its prefix.
func (b *Bot) handleCallback(ctx context.Context, cq *models.CallbackQuery) {
	chatID := callbackChat(cq)
	switch {
	case strings.HasPrefix(cq.Data, prefixApproval):
		b.pressApproval(ctx, cq, chatID, strings.TrimPrefix(cq.Data, prefixApproval))
	case strings.HasPrefix(cq.Data, prefixCancel):
		b.pressCancel(ctx, cq, chatID, strings.TrimPrefix(cq.Data, prefixCancel))
	case strings.HasPrefix(cq.Data, prefixSession):
		b.pressSession(ctx, cq, chatID, strings.TrimPrefix(cq.Data, prefixSession))
	case strings.HasPrefix(cq.Data, prefixKeep):
		b.pressKeep(ctx, cq, chatID, strings.TrimPrefix(cq.Data, prefixKeep))
	case strings.HasPrefix(cq.Data, prefixSchedule):
		b.pressSchedule(ctx, cq, chatID, strings.TrimPrefix(cq.Data, prefixSchedule))
	case strings.HasPrefix(cq.Data, prefixTopic):
		b.pressTopic(ctx, cq, chatID, strings.TrimPrefix(cq.Data, prefixTopic))
	case engines.Handles(cq.Data) && cq.Message.Message != nil:
		key, pl := sessionKey(cq.Message.Message)
		engines.Switch{Core: b.core, Out: controlOut{b}, Log: b.log}.Press(ctx, control.Press{CallbackID: cq.ID,
			UserID: cq.From.ID, Key: key, Place: pl, MsgID: cq.Message.Message.ID, Data: cq.Data})
	case control.Handles(cq.Data) && cq.Message.Message != nil:
		key, pl := sessionKey(cq.Message.Message)
		control.Buttons{Core: b.core, Out: controlOut{b}, Log: b.log}.Press(ctx, control.Press{CallbackID: cq.ID,
			UserID: cq.From.ID, Key: key, Place: pl, MsgID: cq.Message.Message.ID, Data: cq.Data})
	case control.HandlesSteer(cq.Data) && cq.Message.Message != nil:
		key, pl := sessionKey(cq.Message.Message)
		control.Steer{Core: b.core, Out: controlOut{b}, Log: b.log}.Press(ctx, control.Press{CallbackID: cq.ID,
			UserID: cq.From.ID, Key: key, Place: pl, MsgID: cq.Message.Message.ID, Data: cq.Data})
	default:
		b.api.answerCallback(ctx, cq.ID, view.ToastExpired)
	}
}

// pressApproval hands an approval button to the broker, answers the press
// and updates the prompt.
func (b *Bot) pressApproval(ctx context.Context, cq *models.CallbackQuery, chatID int64, tok string) {
	if !b.approvers.mayApprove(cq.From.ID, chatID) {
		b.log.Info("refused a press on a prompt from a user who is not an approver", "chat_id", chatID, "user_id", cq.From.ID)
		b.api.answerCallback(ctx, cq.ID, view.ToastNotApprover(b.approvers.list()))
		return
	}
	res, err := b.core.Press(ctx, tok, cq.From.ID, chatID)
	var ref *approvals.Refusal
	if errors.As(err, &ref) {
		b.api.answerCallback(ctx, cq.ID, view.RefusalToast(ref.Kind))
		return
	}
	b.api.answerCallback(ctx, cq.ID, view.PressToast(res, isGroup(chatID)))
	if err != nil {
		b.log.Warn("decision could not reach claude", "chat_id", chatID, "user_id", cq.From.ID, "request_id", res.Request.RequestID, "err", err)
	}
	b.afterPress(ctx, res, &cq.From)
}

// refusePress answers a press on one of the bot's own buttons that must
// not act: from a user who is not allowed, with a token that is not known
// (answered with unknown), or on another chat's message (tokenChat is the
// chat the token was made for). It reports whether it answered.
func (b *Bot) refusePress(ctx context.Context, cq *models.CallbackQuery, known bool, chatID, tokenChat int64, unknown string) bool {
	switch {
	case !b.allow.user(cq.From.ID):
		b.api.answerCallback(ctx, cq.ID, view.ToastNotAllowedToDo)
	case !known:
		b.api.answerCallback(ctx, cq.ID, unknown)
	case tokenChat != chatID:
		b.api.answerCallback(ctx, cq.ID, view.ToastForeignChat)
	default:
		return false
	}
	return true
}

// pressCancel interrupts the turn whose Cancel button was pressed.
func (b *Bot) pressCancel(ctx context.Context, cq *models.CallbackQuery, chatID int64, tok string) {
	target, ok := b.cancels.get(tok)
	if b.refusePress(ctx, cq, ok, chatID, target.chatID, view.ToastTurnOver) {
		return
	}
	if b.core.Cancel(target.key, nil) {
		b.api.answerCallback(ctx, cq.ID, view.ToastCancelling)
	} else {
		b.api.answerCallback(ctx, cq.ID, view.ToastTurnOver)
	}
}

// pressSession makes the chosen earlier session current: the live process
// is closed and the next message resumes the chosen one, in its directory.
func (b *Bot) pressSession(ctx context.Context, cq *models.CallbackQuery, chatID int64, tok string) {
	c, ok := b.sessions.get(tok)
	ok = ok && time.Since(c.created) <= sessionTokenLife
	switch {
	case !b.allow.user(cq.From.ID):
		b.api.answerCallback(ctx, cq.ID, view.ToastNotAllowedToDo)
		return
	case !ok:
		b.api.answerCallback(ctx, cq.ID, view.ToastSessionsStale)
		return
	case c.chatID != chatID:
		b.api.answerCallback(ctx, cq.ID, view.ToastForeignChat)
		return
	}
	if c.cancel {
		b.sessions.removeIf(func(o sessionChoice) bool { return o.key == c.key && (o.force || o.cancel) })
		b.api.answerCallback(ctx, cq.ID, view.ToastNotResumed)
		if m := cq.Message.Message; m != nil {
			_ = b.api.edit(ctx, chatID, m.ID, view.SessionResumeCancelled, nil, outbox.High, "", nil)
		}
		return
	}
	if b.core.Working(c.key) {
		b.api.answerCallback(ctx, cq.ID, view.ToastSessionBusy)
		return
	}
	if b.core.StartedElsewhere(ctx, c.key, c.past) {
		b.log.Warn("refused a session of another directory", "chat_id", chatID, "session_id", c.past.ID, "work_dir", c.past.WorkDir)
		b.api.answerCallback(ctx, cq.ID, view.ToastSessionForeign)
		return
	}
	if age, inUse := b.core.InUseElsewhere(c.key, c.past); inUse && !c.force {
		b.askInUse(ctx, cq, c, age)
		return
	}
	dir := ""
	if m := b.core.MachineFor(c.key); c.past.WorkDir != "" && c.past.WorkDir != m.WorkDir {
		resolved, err := b.core.ResolveWorkDir(m, m.WorkDir, c.past.WorkDir)
		if err != nil {
			b.api.answerCallback(ctx, cq.ID, view.ToastSessionDir)
			return
		}
		dir = resolved
	}
	err := b.store.SetWorkDir(c.key, dir)
	if err == nil {
		err = b.store.StartSession(c.key, c.past.ID, c.past.Title, c.past.WorkDir)
	}
	if err != nil {
		b.log.Warn("could not switch sessions", "chat_id", chatID, "session_id", c.past.ID, "err", err)
		b.api.answerCallback(ctx, cq.ID, view.ToastSwitchFailed)
		return
	}
	// One was used; the others describe a history that just changed.
	b.sessions.removeIf(func(o sessionChoice) bool { return o.key == c.key })
	b.core.RestartAfterTurn(c.key) // the next turn starts a process resuming the chosen id
	b.api.answerCallback(ctx, cq.ID, view.ToastSwitched)
	if m := cq.Message.Message; m != nil {
		item := view.SessionItem{Title: c.past.Title, WorkDir: c.past.WorkDir}
		_ = b.api.edit(ctx, chatID, m.ID, view.SessionSwitched(item, displayName(&cq.From)), nil, outbox.High, "", nil)
	}
}

// callbackChat is the chat of the message whose button was pressed.
func callbackChat(cq *models.CallbackQuery) int64 {
	switch {
	case cq.Message.Message != nil:
		return cq.Message.Message.Chat.ID
	case cq.Message.InaccessibleMessage != nil:
		return cq.Message.InaccessibleMessage.Chat.ID
	}
	return 0
}

// displayName is how a prompt names who pressed: @username, else the name.
func displayName(u *models.User) string {
	if u == nil {
		return ""
	}
	if u.Username != "" {
		return "@" + u.Username
	}
	return strings.TrimSpace(u.FirstName + " " + u.LastName)
}

// The tokens behind the bot's own buttons.

// cancelRef is what a Cancel button stops: the turn running in a session.
type cancelRef struct {
	key    string
	chatID int64
}

// sessionTokenLife bounds how long a /sessions list's buttons work.
const sessionTokenLife = time.Hour

// sessionChoice is what a button of a /sessions list brings back. Its
// token lives in memory: after a restart the list is stale and says so.
type sessionChoice struct {
	key     string
	chatID  int64
	thread  int
	past    prefs.PastSession
	created time.Time
	// force resumes without the check for a session open elsewhere (the
	// user confirmed); cancel is the warning's Cancel button.
	force, cancel bool
}

// tokens maps the short random callback_data of bot-made buttons (not the
// approval broker's) to what a press means. A press with a token that is not
// here is stale: the bot restarted, or the button was spent.
type tokens[T any] struct {
	mu sync.Mutex
	m  map[string]T
}

func (tk *tokens[T]) add(v T) string {
	tok := token.New()
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.m == nil {
		tk.m = map[string]T{}
	}
	tk.m[tok] = v
	return tok
}

func (tk *tokens[T]) get(tok string) (T, bool) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	v, ok := tk.m[tok]
	return v, ok
}

func (tk *tokens[T]) remove(tok string) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	delete(tk.m, tok)
}

// removeIf drops every token whose value matches.
func (tk *tokens[T]) removeIf(match func(T) bool) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	for t, v := range tk.m {
		if match(v) {
			delete(tk.m, t)
		}
	}
}
