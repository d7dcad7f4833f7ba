package view

import (
	"strings"

	"github.com/go-telegram/bot/models"
)

// The bot's own commands, listed once. Everything a user reads about
// them comes from this list: the command menu (Commands, setMyCommands),
// the /help lines (HelpText) and the table in docs/commands.md (see
// TestDocsCommands). Package telegram dispatches by the same names and
// takes "is this the bot's command or Claude Code's" from them too, and
// its tests check that every command here has a handler there.
//
// A new command is one entry here and one handler in telegram/commands.go;
// `go generate ./telegram/view` then refreshes docs/commands.md.

//go:generate go test -run TestDocsCommands -update

// BotCommand is one of the bot's own commands.
type BotCommand struct {
	// Name is what is typed after "/": lower case, a–z, 0–9 and _ only
	// (Telegram's rule for menu names).
	Name string
	// Aliases answer like Name but are in neither the menu nor /help.
	Aliases []string
	// Args is the arguments it takes, plain text, alternatives split by
	// "|": "on|off", "<name>|show|clear", "[file]"; "" for none. The menu
	// spaces the alternatives out, /help writes them as they are.
	Args string
	// Menu is the menu's description after the arguments, plain text; ""
	// when the arguments say it all.
	Menu string
	// Help is the /help line after the command and its arguments, plain
	// text.
	Help string
	// About marks the commands about the bot itself (/start, /help), not
	// the chat's work: the menu puts the work first and them last, /help
	// opens with them (see helpOrder).
	About bool
}

// BotCommands is the bot's commands in menu order.
func BotCommands() []BotCommand {
	return []BotCommand{
		{Name: "new", Menu: "start a fresh Claude session", Help: "start a fresh Claude session"},
		{Name: "cancel", Menu: "stop the running turn", Help: "stop the current turn"},
		{Name: "status", Menu: "session, model, mode, queue, cost", Help: "session, model and settings"},
		{Name: "btw", Args: "<question>", Menu: "ask aside while a turn runs",
			Help: "ask a question aside while a turn runs: answered at once, the turn undisturbed (when idle, an ordinary prompt)"},
		{Name: "export", Args: "[json]", Menu: "the conversation so far as a file",
			Help: "the conversation so far as a Markdown file (prompts, answers, tools, costs); json: the raw transcript"},
		{Name: "steer", Args: "on|off", Menu: "send messages into the running turn",
			Help: "on: a message sent while a turn runs goes into that turn; off (the default): it waits, with ⚡ Send now"},
		{Name: "usage", Menu: "spend today and this month, usage limits, Claude processes",
			Help: "spend today and this month, usage limits, running Claude processes"},
		{Name: "planmode", Args: "on|off|auto|show|clear",
			Help: "plan before acting: on asks you to approve the plan, auto approves it, clear uses the config"},
		{Name: "model", Args: "<name>|show|clear", Help: "choose the Claude model for this chat"},
		{Name: "verbose", Args: "on|off", Menu: "more detail in progress", Help: "more detail in progress messages"},
		{Name: "stream", Args: "off|edits|drafts", Menu: "see the answer as it is written",
			Help: "see the answer as Claude writes it: drafts in private chats, the progress message in groups"},
		{Name: "speak", Args: "on|off|auto", Menu: "answers as voice notes too",
			Help: "answers also as voice notes, after the text: on for every answer, auto for answers to your voice notes, off for none"},
		{Name: "cwd", Aliases: []string{"cd"}, Args: "<dir>|show|clear", Menu: "this chat's project directory",
			Help: "the project directory of this chat (a fresh session starts there)"},
		{Name: "topic", Args: "<name>", Menu: "open a topic for a project",
			Help: "open a topic of this private chat for a project: its own session, directory and settings"},
		{Name: "sessions", Aliases: []string{"resume"}, Menu: "this directory's Claude Code sessions, to continue one",
			Help: "this directory's Claude Code sessions (desk ones too): tap one to continue it"},
		{Name: "get", Args: "<path>", Menu: "a file of this chat's project", Help: "a file of this chat's project, sent here"},
		{Name: "diff", Args: "[file]", Menu: "uncommitted changes", Help: "uncommitted changes in this chat's git repository"},
		{Name: "branch", Args: "[name]", Menu: "worktrees; move this chat to one",
			Help: "worktrees of the repository; a name moves this chat to that branch's worktree"},
		{Name: "host", Args: "[name]", Menu: "the machines Claude can work on; move this chat",
			Help: "the machines Claude can work on ([hosts] in the config), reachable or not; a name moves this chat there"},
		{Name: "engine", Args: "[claude|codex]", Menu: "the agent this chat runs; switch it",
			Help: "the agent this chat runs (Claude Code, or Codex when [codex] is configured), as buttons; a name switches to it"},
		{Name: "retry", Menu: "send a kept message again",
			Help: "send again the messages kept because this chat's host was unreachable"},
		{Name: "at", Args: "<when> <prompt>", Menu: "run a prompt later, once",
			Help: "run a prompt once, later: in 30m, at 14:30, tomorrow 9:00, on 2026-12-01 08:00"},
		{Name: "every", Args: "<repeat> <prompt>", Menu: "run a prompt again and again",
			Help: "run a prompt on a repeat: every 6h, 1d, or a cron expression in quotes (\"0 9 * * 1-5\")"},
		{Name: "schedules", Menu: "this chat's schedules, to remove one", Help: "this chat's schedules, next run times, ✖ to remove"},
		{Name: "web", Args: "[logout]", Menu: "open this bot's web view",
			Help: "a one-time link that signs you in to the web view (private chat only); logout ends your web sessions"},
		{Name: "help", Menu: "how to use this bot", Help: "this help", About: true},
		{Name: "start", Menu: "hello", Help: "say hello and check access", About: true},
	}
}

// Commands is the command menu Telegram shows (setMyCommands): every
// command of BotCommands, in its order. Its descriptions are plain text.
func Commands() []models.BotCommand {
	var menu []models.BotCommand
	for _, c := range BotCommands() {
		menu = append(menu, models.BotCommand{Command: c.Name, Description: c.MenuDescription()})
	}
	return menu
}

// MenuDescription is the command's description in the menu: its
// arguments, spaced out ("on | off"), then Menu.
func (c BotCommand) MenuDescription() string {
	args := strings.ReplaceAll(c.Args, "|", " | ")
	switch {
	case args == "":
		return c.Menu
	case c.Menu == "":
		return args
	}
	return args + ": " + c.Menu
}

// Usage is the command as /help shows it, plain text: "/model
// <name>|show|clear".
func (c BotCommand) Usage() string {
	if c.Args == "" {
		return "/" + c.Name
	}
	return "/" + c.Name + " " + c.Args
}

// helpOrder is BotCommands in /help's order: /help opens with the way in
// (/start, then /help itself), which the menu lists last, least needed
// once you are in; the chat's work follows in menu order.
func helpOrder() []BotCommand {
	var about, work []BotCommand
	for _, c := range BotCommands() {
		if c.About {
			about = append([]BotCommand{c}, about...)
		} else {
			work = append(work, c)
		}
	}
	return append(about, work...)
}

// helpLines are the /help lines of the commands, one each, HTML.
func helpLines() string {
	var b strings.Builder
	for _, c := range helpOrder() {
		b.WriteString(esc(c.Usage()) + " — " + esc(c.Help) + "\n")
	}
	return b.String()
}
