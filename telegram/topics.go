package telegram

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	tgbot "github.com/go-telegram/bot"

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
	st := b.settings(key)
	dir, name := st.WorkDir, arg
	if d, err := b.resolveWorkDir(st.WorkDir, arg); err == nil {
		dir, name = d, filepath.Base(d)
	}
	if r := []rune(name); len(r) > maxTopicName {
		name = string(r[:maxTopicName])
	}
	thread, err := b.api.createTopic(ctx, pl.ChatID, name)
	if err != nil {
		b.log.Info("telegram refused a topic in a private chat", "chat_id", pl.ChatID, "err", err)
		b.api.notify(pl, replyTo, view.TopicsOff(b.redact(apiDescription(err))))
		return
	}
	topicKey := SessionKey(pl.ChatID, thread)
	if dir != b.cfg.WorkDir {
		if err := b.store.SetWorkDir(topicKey, dir); err != nil {
			b.log.Warn("could not store a topic's directory", "chat_id", pl.ChatID, "err", err)
			dir = b.cfg.WorkDir
		}
	}
	b.api.notify(place{ChatID: pl.ChatID, Thread: thread}, 0, view.TopicWelcome(dir))
	b.api.notify(pl, replyTo, view.TopicOpened(name, dir))
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
