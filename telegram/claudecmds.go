package telegram

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// Claude Code's own slash commands: a command the bot does not answer
// itself is Claude Code's, and goes to it as the prompt (it expands custom
// commands and skills, runs /compact, /clear, /context locally: see
// docs/protocol.md). The chat's command menu lists the project's commands
// next to the bot's.

// builtin tells whether name is one of the built-in commands of the chat's
// engine (engine.Builtins). In a group they pass without naming the bot,
// like the project's commands; any other command there must name it
// (/cmd@bot), since Telegram sends every command to every bot of the group.
func (b *Bot) builtin(key, name string) bool {
	e, ok := b.core.MachineFor(key).Engine.(engine.Builtins)
	return ok && slices.Contains(e.BuiltinCommands(), strings.ToLower(name))
}

// claudeCommand turns a command the bot does not own into the prompt
// Claude Code gets: the command as typed (case kept, "@bot" dropped), with
// a menu name ("/code_review") turned back into the command's own name
// ("/code-review"). ok is false for a command in a group that is none of
// Claude Code's and does not name the bot: it is not for this bot. The
// project's commands are read from the chat's directory as checked
// (chatDir): a directory that no longer passes falls back here too.
func (b *Bot) claudeCommand(key string, pl place, m *models.Message, text string) (prompt string, ok bool) {
	word, rest, _ := strings.Cut(text, " ")
	name, target, named := strings.Cut(strings.TrimPrefix(word, "/"), "@")
	known := b.builtin(key, name)
	// From memory: this runs on the polling loop (see commandLists). In a
	// private chat every command passes and the actor maps its name, so
	// nothing is waited for there.
	wait := time.Duration(0)
	if isGroup(m.Chat.ID) {
		wait = groupListWait
	}
	cmds, _ := b.core.Commands().Cached(chat.Dir{Machine: b.core.MachineFor(key).Name, Path: b.chatDir(key, pl, m.ID)}, wait)
	if c, found := findCommand(cmds, name); found {
		name, known = c.Name, true
	}
	if isGroup(m.Chat.ID) && !known && !(named && strings.EqualFold(target, b.me.Username)) {
		return "", false
	}
	prompt = "/" + name
	if rest = strings.TrimSpace(rest); rest != "" {
		prompt += " " + rest
	}
	return prompt, true
}

// commandPrompt gives a prompt that starts with a command's menu name
// ("/code_review") the command's own name ("/code-review") from dir's list
// read now. It runs on the actor's goroutine, never the polling loop, and
// catches what the loop's cached list could not know (a list not read yet
// after a restart, a command file added since).
func (b *Bot) commandPrompt(ctx context.Context, dir chat.Dir, prompt string) string {
	word, rest, _ := strings.Cut(prompt, " ")
	name, ok := strings.CutPrefix(word, "/")
	if !ok || name == "" || isBotCommand(strings.ToLower(name)) {
		return prompt
	}
	c, found := findCommand(b.core.Commands().Load(ctx, dir), name)
	if !found || c.Name == name {
		return prompt
	}
	if rest != "" {
		return "/" + c.Name + " " + rest
	}
	return "/" + c.Name
}

// refreshMenu sets the chat's command menu to the bot's commands and those
// of the project in dir, when that differs from what was last set for the
// chat in this run (once per chat and run at least, so a menu left from an
// earlier run is put right). A forum's topics share the chat's menu: the
// last session started in the chat sets it.
//
// It reads the project's command files (bounded by safefile's limits), so
// it runs on the actor's goroutine, never the polling loop.
func (b *Bot) refreshMenu(ctx context.Context, chatID int64, dir chat.Dir) {
	var entries []view.MenuEntry
	for _, c := range b.core.Commands().Load(ctx, dir) {
		if name, ok := menuName(c.Name); ok {
			entries = append(entries, view.MenuEntry{Name: name, Description: c.Description, User: c.User})
		}
	}
	cmds := view.CommandsWith(entries)
	var sig strings.Builder
	for _, c := range cmds {
		sig.WriteString(c.Command + "\x00" + c.Description + "\x00")
	}
	if prev, ok := b.menus.Swap(chatID, sig.String()); ok && prev.(string) == sig.String() {
		return
	}
	// Housekeeping (unpaced Low: only when nothing else is ready): when
	// many sessions start at once, their first words must not queue
	// behind a menu each.
	b.out.Replace(outbox.Job{Unpaced: true, Priority: outbox.Low, Key: "menu:" + strconv.FormatInt(chatID, 10),
		Do: func(ctx context.Context) error {
			_, err := b.client.SetMyCommands(ctx, &tgbot.SetMyCommandsParams{Commands: cmds, Scope: &models.BotCommandScopeChat{ChatID: chatID}})
			return b.api.wrap("setMyCommands", err)
		},
		OnDone: func(err error) {
			if err != nil && !errors.Is(err, outbox.ErrSuperseded) {
				b.menus.Delete(chatID) // try again with the next session
				b.log.Warn("could not set the chat's command menu", "chat_id", chatID, "err", err)
			}
		}})
}
