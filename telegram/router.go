package telegram

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/control"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/render"
	"github.com/untether/untether/telegram/view"
)

// handleUpdate routes one update. It returns quickly: turns run in actors,
// button presses in their own goroutine, commands in their session's lane.
// An update that does no work (from a stranger, a group message not meant
// for the bot) is not written down: see skipped.
func (b *Bot) handleUpdate(ctx context.Context, u models.Update) {
	switch {
	case u.CallbackQuery != nil:
		b.handlePress(ctx, u.ID, u.CallbackQuery)
	case u.Message != nil:
		b.handleMessage(u.ID, u.Message)
	case u.EditedMessage != nil:
		b.handleEdit(u.ID, u.EditedMessage)
	case u.StoppedMessageGeneration != nil: // the stop button on a draft (Bot API 10.3)
		sm := u.StoppedMessageGeneration
		control.Stop{Core: b.core, Allowed: func(id int64) bool { return !isGroup(id) && b.allow.user(id) }, Log: b.log}.Stopped(SessionKey(sm.Chat.ID, sm.MessageThreadID),
			place{ChatID: sm.Chat.ID, Thread: sm.MessageThreadID}, int64(sm.DraftID))
	}
}

// accept records an update as handled (and queues its prompt) durably.
func (b *Bot) accept(updateID int64, key string, p *prefs.Prompt) (seq uint64, fresh bool) {
	seq, fresh, err := b.store.AcceptUpdate(updateID, key, p)
	if err != nil {
		// Without the store we cannot promise exactly-once; run it anyway
		// rather than lose the message.
		b.log.Error("could not record update", "update_id", updateID, "err", err)
		return 0, true
	}
	b.storedOffset.Store(updateID + 1)
	return seq, fresh
}

// sessionKey is the session a message belongs to, and where answers go:
// a topic of a forum, or of a private chat with topics (Bot API 9.3), is a
// session of its own.
func sessionKey(m *models.Message) (string, place) {
	p := place{ChatID: m.Chat.ID}
	topics := m.Chat.IsForum || m.Chat.Type == models.ChatTypePrivate
	if topics && m.IsTopicMessage && m.MessageThreadID != 0 {
		p.Thread = m.MessageThreadID
	}
	return SessionKey(p.ChatID, p.Thread), p
}

// SessionKey names a session in the store, the approvals broker and
// Spec.SessionKey: the chat's id, or "chat:thread" for a forum topic
// (thread 0 is the chat itself). It is the only place such a key is made.
func SessionKey(chatID int64, thread int) string {
	if thread == 0 {
		return strconv.FormatInt(chatID, 10)
	}
	return strconv.FormatInt(chatID, 10) + ":" + strconv.Itoa(thread)
}

// isGroup is the one rule that tells groups (and supergroups, channels)
// from private chats. It needs only the chat id, which every stored prompt
// and request keeps: the Bot API gives a private chat its user's positive
// id and every other chat a negative one.
func isGroup(chatID int64) bool { return chatID < 0 }

func (b *Bot) handleMessage(updateID int64, m *models.Message) {
	key, pl := sessionKey(m)
	if m.From == nil || m.From.IsBot {
		return // skipped
	}
	group := isGroup(m.Chat.ID)
	if !b.allow.chat(m.Chat.ID) {
		return // skipped
	}
	if !b.allow.user(m.From.ID) {
		b.refuse(pl, m.From.ID, group)
		return // skipped
	}
	b.approvers.learnName(m.From)
	text, cmd, args, addressed := b.parseText(m)
	if group && m.MediaGroupID != "" {
		// In a group an album is addressed by its captioned item alone.
		addressed = b.albumAddressed(m.MediaGroupID, addressed)
	}
	if group && !addressed {
		return // skipped
	}
	if cmd == "btw" && args != "" && !b.core.Working(key) {
		text, cmd = args, "" // asked aside when idle: an ordinary prompt
	}
	if cmd != "" && isBotCommand(cmd) {
		if _, fresh := b.accept(updateID, key, nil); fresh {
			b.route(key, pl, m, cmd, args)
		}
		return
	}
	if cmd != "" {
		// Not the bot's: Claude Code's own command, run as a prompt.
		var ok bool
		if text, ok = b.claudeCommand(key, pl, m, text); !ok {
			return // skipped: in a group, a command for another bot
		}
	}
	files, other := attachments(m)
	own := len(files)
	quote, replied := b.replyContext(m)
	if text != "" || own > 0 {
		files = append(files, replied...) // a reply alone is no prompt
	} else {
		quote = ""
	}
	if text == "" && len(files) == 0 {
		if _, fresh := b.accept(updateID, "", nil); fresh && other != "" {
			b.api.notify(pl, m.ID, view.Unsupported(other))
		}
		return
	}
	if why := b.recordingRefusal(files); why != "" {
		if _, fresh := b.accept(updateID, "", nil); fresh {
			b.api.notify(pl, m.ID, why)
		}
		return
	}
	if f, big := tooBig(files); big {
		if _, fresh := b.accept(updateID, "", nil); fresh {
			b.api.notify(pl, m.ID, view.FileTooBig(f.Size, maxDownload))
		}
		return
	}
	p := &prefs.Prompt{UpdateID: updateID, ChatID: m.Chat.ID, ThreadID: pl.Thread, MessageID: m.ID,
		UserID: m.From.ID, Text: text, Date: time.Unix(int64(m.Date), 0), Files: files, Quote: quote}
	if own > 0 {
		p.Album = m.MediaGroupID
	}
	// An answer typed for AskUserQuestion's "Other" is not a new prompt
	// (a photo or file is one, even while a question waits for text).
	// Only an approver's: anyone else's is a prompt of its own.
	if len(files) == 0 && b.broker.AwaitsText(key) && b.approvers.mayApprove(p.UserID, p.ChatID) {
		b.typedAnswer(key, pl, group, p, m.From)
		return
	}
	if age, old := b.tooOld(p); old {
		if _, fresh := b.accept(updateID, "", nil); !fresh {
			return
		}
		b.api.notify(pl, m.ID, view.SkippedNote(age))
		return
	}
	seq, fresh := b.accept(updateID, key, p)
	if !fresh {
		return
	}
	qp := prefs.QueuedPrompt{Key: key, Seq: seq, Prompt: *p}
	// Seen at once: a message that waits behind a turn gets "typing…" now
	// (no message window counts it; high priority, ahead of drafts in a
	// burst). One that runs at once is shown by its turn's first draft or
	// typing, as high, before any start wait: a second sign here would
	// spend the chat's action lane just before Claude's first words.
	if b.core.Working(key) {
		b.arrived.Mark(pl)
		b.chatAction(pl, models.ChatActionTyping, outbox.High)
	}
	b.lanes.inOrder(key, func() { b.core.Submit(key, pl, qp) })
}

// typedAnswer offers a text to the question waiting for one. Writing the
// answer to Claude may block, so it happens in the session's lane; the text
// is stored as a prompt first, so that a crash (which ends the question
// with the process) runs it as one, and so does a question that ended
// meanwhile.
func (b *Bot) typedAnswer(key string, pl place, group bool, p *prefs.Prompt, from *models.User) {
	seq, fresh := b.accept(p.UpdateID, key, p)
	if !fresh {
		return
	}
	qp := prefs.QueuedPrompt{Key: key, Seq: seq, Prompt: *p}
	b.lanes.run(key, func(ctx context.Context) {
		consumed, res, err := b.broker.TakeText(ctx, p.ChatID, p.UserID, key, p.Text)
		if !consumed {
			if age, old := b.tooOld(p); old {
				b.donePrompt(key, seq)
				b.api.notify(pl, p.MessageID, view.SkippedNote(age))
				return
			}
			b.core.Submit(key, pl, qp)
			return
		}
		b.donePrompt(key, seq)
		if err != nil {
			b.log.Warn("typed answer could not reach claude", "chat_id", p.ChatID, "user_id", p.UserID, "err", err)
		}
		b.afterPress(ctx, res, from)
	})
}

// tooOld tells a message that waited too long (the bot was down) to run.
func (b *Bot) tooOld(p *prefs.Prompt) (time.Duration, bool) {
	age := time.Since(p.Date)
	return age, p.Date.Unix() != 0 && age > b.cfg.MaxBacklogAge
}

func (b *Bot) donePrompt(key string, seq uint64) {
	if err := b.store.DonePrompt(key, seq); err != nil {
		b.log.Warn("could not mark a prompt done", "session_key", key, "err", err)
	}
}

// parseText finds a command and strips the bot's mention. addressed says
// whether a group message is meant for the bot: a command, a mention, or
// a reply to one of its messages (so privacy mode can stay on).
func (b *Bot) parseText(m *models.Message) (text, cmd, args string, addressed bool) {
	raw, ents, caption := m.Text, m.Entities, false
	if raw == "" && m.Caption != "" {
		// A photo's or file's caption is its prompt; commands come as text only.
		raw, ents, caption = m.Caption, m.CaptionEntities, true
	}
	text = strings.TrimSpace(raw)
	if !caption && strings.HasPrefix(text, "/") {
		word, rest, _ := strings.Cut(text, " ")
		name, target, hasTarget := strings.Cut(word[1:], "@")
		if hasTarget && !strings.EqualFold(target, b.me.Username) {
			return "", "", "", false // a command for another bot
		}
		return text, strings.ToLower(name), strings.TrimSpace(rest), true
	}
	if m.ReplyToMessage != nil && m.ReplyToMessage.From != nil && m.ReplyToMessage.From.ID == b.me.ID {
		addressed = true
	}
	if b.me.Username != "" {
		mention := "@" + b.me.Username
		for _, e := range ents {
			if e.Type != models.MessageEntityTypeMention {
				continue
			}
			if s := render.UTF16Slice(raw, e.Offset, e.Length); strings.EqualFold(s, mention) {
				addressed = true
			}
		}
		if addressed || isGroup(m.Chat.ID) {
			text = strings.TrimSpace(render.ReplaceFold(text, mention, ""))
		}
	}
	return text, "", "", addressed || !isGroup(m.Chat.ID)
}

// albumAddressed remembers the albums whose items were addressed to the
// bot, for a minute, and tells whether an item of album is.
func (b *Bot) albumAddressed(album string, addressed bool) bool {
	now := time.Now()
	if addressed {
		b.albums.Store(album, now)
		b.albums.Range(func(k, v any) bool { // forget old albums
			if now.Sub(v.(time.Time)) > time.Minute {
				b.albums.Delete(k)
			}
			return true
		})
		return true
	}
	v, ok := b.albums.Load(album)
	return ok && now.Sub(v.(time.Time)) <= time.Minute
}
