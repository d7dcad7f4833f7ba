package telegram

import (
	"context"
	"errors"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/schedule"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// prefixSchedule is the callback data of a /schedules list's ✖ buttons.
const prefixSchedule = "x:"

// atCommand is /at WHEN PROMPT: a run once, later.
func (b *Bot) atCommand(c commandCall) string {
	now := time.Now()
	when, prompt, err := schedule.ParseAt(c.args, now, b.sched.Location())
	if err != nil {
		return scheduleError("at", err)
	}
	return b.addSchedule(c, schedule.Rule{At: when}, prompt, when, now)
}

// everyCommand is /every SPEC PROMPT: a run again and again.
func (b *Bot) everyCommand(c commandCall) string {
	now := time.Now()
	r, prompt, err := schedule.ParseEvery(c.args)
	if err != nil {
		return scheduleError("every", err)
	}
	reply := b.addSchedule(c, r, prompt, r.First(now, b.sched.Location()), now)
	if b.subs.subscription.Load() {
		b.subs.tell(c.pl, c.m.ID)
	}
	return reply
}

func scheduleError(cmd string, err error) string {
	var e *schedule.Error
	if errors.As(err, &e) {
		return view.ScheduleError(cmd, e)
	}
	return view.ScheduleError(cmd, &schedule.Error{Kind: schedule.ErrBadSpec})
}

// addSchedule stores a user's schedule, owned by the user who set it up
// (checked again at each run), and wakes the loop.
func (b *Bot) addSchedule(c commandCall, r schedule.Rule, prompt string, next, now time.Time) string {
	if c.m.From == nil {
		return view.NotAllowedNote(false)
	}
	sc := prefs.Schedule{Key: c.key, ChatID: c.pl.ChatID, ThreadID: c.pl.Thread, UserID: c.m.From.ID, Prompt: prompt,
		At: r.At, Every: r.Every, Cron: r.Cron, Next: next, Created: now}
	if _, err := b.store.AddSchedule(sc, b.cfg.Schedules.MaxPerChat); errors.Is(err, prefs.ErrTooMany) {
		return view.TooManySchedules(b.cfg.Schedules.MaxPerChat)
	} else if err != nil {
		b.log.Error("could not store a schedule", "chat_id", c.pl.ChatID, "err", err)
		return view.SettingNotSaved(err.Error())
	}
	b.sched.Poke()
	return view.ScheduleAdded(view.ScheduleRule(r, now, b.sched.Location()), r.Once(), prompt, next, now, b.sched.Location())
}

// schedulesCommand lists the chat's schedules with a ✖ button for each one
// a user set up.
func (b *Bot) schedulesCommand(ctx context.Context, c commandCall) {
	text, kb, err := b.scheduleList(c.key, c.pl.ChatID)
	if err != nil {
		b.log.Error("could not read schedules", "chat_id", c.pl.ChatID, "err", err)
		b.answer(c, view.SettingNotSaved(err.Error()))
		return
	}
	if _, err := b.api.send(ctx, c.pl, c.m.ID, text, kb, outbox.Normal); err != nil {
		b.log.Warn("could not send the schedules", "chat_id", c.pl.ChatID, "err", err)
	}
}

// scheduleList is the list of session key's schedules and its ✖ buttons.
// A new list makes the buttons of the previous one stale.
func (b *Bot) scheduleList(key string, chatID int64) (string, view.Keyboard, error) {
	all, err := b.store.Schedules()
	if err != nil {
		return "", nil, err
	}
	b.schedMsg.removeIf(func(r scheduleRef) bool { return r.key == key })
	now := time.Now()
	var items []view.ScheduleItem
	for _, sc := range all {
		if sc.Key != key {
			continue
		}
		it := view.ScheduleItem{Rule: view.ScheduleRule(schedule.Rule{At: sc.At, Every: sc.Every, Cron: sc.Cron}, now, b.sched.Location()),
			Prompt: sc.Prompt, Next: sc.Next, Config: sc.Config}
		if !sc.Config {
			it.Data = prefixSchedule + b.schedMsg.add(scheduleRef{key: key, chatID: chatID, id: sc.ID})
		}
		items = append(items, it)
	}
	text, shown := view.SchedulesText(items, now, b.sched.Location())
	return text, view.SchedulesKeyboard(items[:shown]), nil
}

// pressSchedule removes the schedule whose ✖ was pressed.
func (b *Bot) pressSchedule(ctx context.Context, cq *models.CallbackQuery, chatID int64, tok string) {
	ref, ok := b.schedMsg.get(tok)
	if b.refusePress(ctx, cq, ok, chatID, ref.chatID, view.ToastScheduleGone) {
		return
	}
	b.schedMsg.remove(tok)
	found, err := b.store.RemoveSchedule(ref.key, ref.id)
	if err != nil {
		b.log.Error("could not remove a schedule", "chat_id", chatID, "err", err)
	}
	if !found {
		b.api.answerCallback(ctx, cq.ID, view.ToastScheduleGone)
		return
	}
	b.sched.Poke()
	b.api.answerCallback(ctx, cq.ID, view.ToastScheduleRemoved)
	// The list shows what is left, with fresh buttons.
	if m := cq.Message.Message; m != nil {
		if text, kb, err := b.scheduleList(ref.key, chatID); err == nil {
			_ = b.api.edit(ctx, chatID, m.ID, text, kb, outbox.Normal, "", nil)
		}
	}
}
