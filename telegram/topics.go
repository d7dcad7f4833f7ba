package telegram

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// A topic per project in the private chat (Bot API 9.3/9.4): where the
// bot has topics turned on, a private chat's topics are sessions of their
// own like a forum's (sessionKey), each with its directory, model and
// modes. /topic NAME opens one; a NAME that is a project directory (as
// /cwd takes it) makes the topic work there.

// maxTopicName is Telegram's limit on a topic's name, in characters.
const maxTopicName = 128

// topicCommand opens a topic of the private chat for a project.
func (b *Bot) topicCommand(ctx context.Context, key string, pl place, replyTo int, arg string) {
	arg = strings.TrimSpace(arg)
	switch {
	case arg == "":
		b.api.notify(pl, replyTo, view.TopicUsage)
		return
	case isGroup(pl.ChatID):
		b.api.notify(pl, replyTo, view.TopicGroup)
		return
	case !b.me.Topics:
		b.api.notify(pl, replyTo, view.TopicsOff(""))
		return
	}
	// A project directory names the topic after itself and is its
	// directory; any other name keeps the chat's directory.
	st := b.core.Settings(key)
	dir, name := st.WorkDir, arg
	if d, err := b.core.ResolveWorkDir(b.machines.Named(st.Host), st.WorkDir, arg); err == nil {
		dir, name = d, filepath.Base(d)
	}
	if err := b.openTopic(ctx, pl, st.Host, dir, name); err != nil {
		b.api.notify(pl, replyTo, view.TopicsOff(b.redact(apiDescription(err))))
		return
	}
	b.api.notify(pl, replyTo, view.TopicOpened(name, dir))
}

// openTopic opens a topic named name in the private chat, working in dir
// on the machine host (the chat's), and greets it there.
func (b *Bot) openTopic(ctx context.Context, pl place, host, dir, name string) error {
	if r := []rune(name); len(r) > maxTopicName {
		name = string(r[:maxTopicName])
	}
	thread, err := b.api.createTopic(ctx, pl.ChatID, name)
	if err != nil {
		b.log.Info("telegram refused a topic in a private chat", "chat_id", pl.ChatID, "err", err)
		b.noTopics.Store(pl.ChatID, true) // no more buttons that would fail the same way
		return err
	}
	topic, m := SessionKey(pl.ChatID, thread), b.machines.Named(host)
	if host != "" {
		if err := b.store.SetHost(topic, host); err != nil {
			b.log.Warn("could not store a topic's machine", "chat_id", pl.ChatID, "err", err)
			m = b.machines.Default()
		}
	}
	if dir != m.WorkDir {
		if err := b.store.SetWorkDir(topic, dir); err != nil {
			b.log.Warn("could not store a topic's directory", "chat_id", pl.ChatID, "err", err)
			dir = m.WorkDir
		}
	}
	b.api.notify(place{ChatID: pl.ChatID, Thread: thread}, 0, view.TopicWelcome(dir))
	return nil
}

// A button after /cwd opens a topic for the directory the chat moved to,
// so that each project keeps a topic of its own.

// topicChoice is what a "topic for this project" button opens.
type topicChoice struct {
	chatID    int64
	host, dir string
}

// cwdAnswer answers /cwd; in a private chat with topics (outside any
// topic, and where Telegram did not refuse one before), a directory other
// than the default gets the button that opens a topic for it.
func (b *Bot) cwdAnswer(ctx context.Context, c commandCall) {
	text := b.cwdCommand(c.key, c.pl, c.m.ID, c.args)
	st := b.core.Settings(c.key)
	_, refused := b.noTopics.Load(c.pl.ChatID)
	if c.group || c.pl.Thread != 0 || !b.me.Topics || refused || st.WorkDir == b.machines.Named(st.Host).WorkDir {
		b.answer(c, text)
		return
	}
	dir := st.WorkDir
	tok := b.topicBtn.add(topicChoice{chatID: c.pl.ChatID, host: st.Host, dir: dir})
	kb := view.TopicKeyboard(filepath.Base(dir), prefixTopic+tok)
	if _, err := b.api.send(ctx, c.pl, c.m.ID, text, kb, outbox.Normal); err != nil {
		b.log.Warn("could not answer /cwd", "chat_id", c.pl.ChatID, "err", err)
	}
}

// pressTopic opens the topic a /cwd answer's button offers.
func (b *Bot) pressTopic(ctx context.Context, cq *models.CallbackQuery, chatID int64, tok string) {
	c, ok := b.topicBtn.get(tok)
	if b.refusePress(ctx, cq, ok, chatID, c.chatID, view.ToastExpired) {
		return
	}
	b.topicBtn.remove(tok) // one topic per button
	name := filepath.Base(c.dir)
	if err := b.openTopic(ctx, place{ChatID: chatID}, c.host, c.dir, name); err != nil {
		b.api.answerCallback(ctx, cq.ID, view.ToastTopicRefused)
		b.api.notify(place{ChatID: chatID}, 0, view.TopicsOff(b.redact(apiDescription(err))))
		return
	}
	b.api.answerCallback(ctx, cq.ID, view.ToastTopicOpened(name))
}

// createTopic opens a topic named name in a chat and returns its thread.
func (api *tgAPI) createTopic(ctx context.Context, chatID int64, name string) (int, error) {
	var thread int
	name = api.redact(name)
	err := api.out.Send(ctx, outbox.Job{ChatID: chatID, Do: func(ctx context.Context) error {
		t, err := api.client.CreateForumTopic(ctx, &tgbot.CreateForumTopicParams{ChatID: chatID, Name: name})
		if err != nil {
			return api.wrap("createForumTopic", err)
		}
		thread = t.MessageThreadID
		return nil
	}})
	return thread, err
}

// apiDescription is what Telegram said, without the method in front.
func apiDescription(err error) string {
	if e, ok := errors.AsType[*apiError](err); ok {
		return e.msg
	}
	return err.Error()
}
