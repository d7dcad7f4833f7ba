package telegram

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/view"
)

// refusalEvery limits refusals to a stranger in a private chat.
const refusalEvery = time.Hour

// handleUpdate routes one update. It returns quickly: turns run in actors,
// button presses in their own goroutine.
func (b *Bot) handleUpdate(ctx context.Context, u models.Update) {
	switch {
	case u.CallbackQuery != nil:
		// A press must not wait for a disk sync (a commit is the bulk of its
		// round trip): a read tells a redelivery after a restart, the
		// handler starts, and the record is written meanwhile. A crash in
		// between redelivers the press to a broker that no longer knows
		// it: the user sees "expired", nothing is decided twice.
		if handled, err := b.store.Handled(u.ID); err == nil && handled {
			return // redelivered after a restart: it was handled before
		}
		cq := u.CallbackQuery
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			b.handleCallback(ctx, cq)
		}()
		b.accept(u.ID, "", nil)
	case u.Message != nil:
		b.handleMessage(ctx, u.ID, u.Message)
	case u.EditedMessage != nil:
		b.handleEdit(u.ID, u.EditedMessage)
	default:
		b.accept(u.ID, "", nil)
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
	return seq, fresh
}

// sessionKey is the chat, or chat:thread in a forum topic.
func sessionKey(m *models.Message) (string, place) {
	p := place{ChatID: m.Chat.ID}
	if m.Chat.IsForum && m.IsTopicMessage && m.MessageThreadID != 0 {
		p.Thread = m.MessageThreadID
		return strconv.FormatInt(m.Chat.ID, 10) + ":" + strconv.Itoa(m.MessageThreadID), p
	}
	return strconv.FormatInt(m.Chat.ID, 10), p
}

func isGroup(c models.Chat) bool { return c.Type != models.ChatTypePrivate }

// isGroupID tells groups from private chats where only the id is known:
// the Bot API gives groups, supergroups and channels negative ids.
func isGroupID(chatID int64) bool { return chatID < 0 }

func (b *Bot) handleMessage(ctx context.Context, updateID int64, m *models.Message) {
	key, pl := sessionKey(m)
	if m.From == nil || m.From.IsBot {
		b.accept(updateID, "", nil)
		return
	}
	group := isGroup(m.Chat)
	log := b.log.With("chat_id", m.Chat.ID, "user_id", m.From.ID)
	if group && len(b.allowedChats) > 0 && !b.allowedChats[m.Chat.ID] {
		b.accept(updateID, "", nil)
		return
	}
	if !b.userAllowed(m.From.ID) {
		b.accept(updateID, "", nil)
		log.Info("ignored a message from a user who is not allowed")
		if !group {
			b.refuse(pl, m.From.ID)
		}
		return
	}
	text, cmd, args, addressed := b.parseText(m)
	if group && m.MediaGroupID != "" {
		// In a group an album is addressed by its captioned item alone.
		addressed = b.albumAddressed(m.MediaGroupID, addressed)
	}
	if group && !addressed {
		b.accept(updateID, "", nil)
		return
	}
	if cmd != "" {
		if _, fresh := b.accept(updateID, key, nil); fresh {
			b.command(ctx, key, pl, m, cmd, args)
		}
		return
	}
	files, other := attachments(m)
	if text == "" && len(files) == 0 {
		if _, fresh := b.accept(updateID, "", nil); fresh && other != "" {
			b.notify(pl, m.ID, "I can pass text, photos and files to Claude, but not "+other+".")
		}
		return
	}
	if f, big := tooBig(files); big {
		if _, fresh := b.accept(updateID, "", nil); fresh {
			b.notify(pl, m.ID, fmt.Sprintf("That file is %s, and Telegram lets bots download files of up to %d MB: "+
				"send a smaller one, or put it in the working folder another way.", humanBytes(f.Size), maxDownload>>20))
		}
		return
	}
	// An answer typed for AskUserQuestion's "Other" is not a new prompt
	// (a photo or file is one, even while a question waits for text).
	if len(files) == 0 {
		if consumed, res, err := b.broker.TakeText(ctx, m.Chat.ID, m.From.ID, key, text); consumed {
			b.accept(updateID, key, nil)
			if err != nil {
				log.Warn("typed answer could not reach claude", "err", err)
			}
			b.afterPress(ctx, res, m.From)
			return
		}
	}
	if age := b.now().Sub(time.Unix(int64(m.Date), 0)); m.Date != 0 && age > b.cfg.MaxBacklogAge {
		if _, fresh := b.accept(updateID, "", nil); !fresh {
			return
		}
		b.notify(pl, m.ID, view.SkippedNote(age))
		return
	}
	p := &prefs.Prompt{UpdateID: updateID, ChatID: m.Chat.ID, ThreadID: pl.Thread, MessageID: m.ID,
		UserID: m.From.ID, Text: text, Date: time.Unix(int64(m.Date), 0), Files: files}
	if len(files) > 0 {
		p.Album = m.MediaGroupID
	}
	seq, fresh := b.accept(updateID, key, p)
	if !fresh {
		return
	}
	b.actorFor(key, pl, group).enqueue(prefs.QueuedPrompt{Key: key, Seq: seq, Prompt: *p})
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
			if s := utf16Slice(raw, e.Offset, e.Length); strings.EqualFold(s, mention) {
				addressed = true
			}
		}
		if addressed || isGroup(m.Chat) {
			text = strings.TrimSpace(replaceFold(text, mention, ""))
		}
	}
	return text, "", "", addressed || !isGroup(m.Chat)
}

// utf16Slice cuts s by UTF-16 offsets, as Telegram's entities count.
func utf16Slice(s string, off, n int) string {
	u := utf16.Encode([]rune(s))
	if off < 0 || n < 0 || off+n > len(u) {
		return ""
	}
	return string(utf16.Decode(u[off : off+n]))
}

func replaceFold(s, old, repl string) string {
	i := strings.Index(strings.ToLower(s), strings.ToLower(old))
	if i < 0 {
		return s
	}
	return s[:i] + repl + s[i+len(old):]
}

func (b *Bot) refuse(p place, userID int64) {
	now := b.now()
	if last, ok := b.refused.Load(userID); ok && now.Sub(last.(time.Time)) < refusalEvery {
		return
	}
	b.refused.Store(userID, now)
	b.notify(p, 0, view.Refusal(userID))
}

// actorFor returns the session's actor, creating it (without a goroutine).
func (b *Bot) actorFor(key string, p place, group bool) *actor {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.actors[key]
	if a == nil {
		a = newActor(b, key, p, group)
		b.actors[key] = a
	}
	return a
}

func (b *Bot) existingActor(key string) *actor {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.actors[key]
}

// albumAddressed remembers the albums whose items were addressed to the
// bot, for a minute, and tells whether an item of album is.
func (b *Bot) albumAddressed(album string, addressed bool) bool {
	now := b.now()
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
