package telegram

import (
	"maps"
	"slices"
	"testing"

	"github.com/untether/untether/runner/claudefiles"
	"github.com/untether/untether/telegram/view"
)

// view.BotCommands and commandHandlers name the same commands: a listed
// command without a handler would answer "Unknown command", a handler
// without a listing could never run (and be in no menu, /help or doc).
func TestCommandHandlersMatchTheList(t *testing.T) {
	listed := map[string]bool{}
	for _, c := range view.BotCommands() {
		listed[c.Name] = true
		if _, ok := commandHandlers[c.Name]; !ok {
			t.Errorf("/%s is in view.BotCommands but has no handler in commandHandlers", c.Name)
		}
	}
	for name := range commandHandlers {
		if !listed[name] {
			t.Errorf("commandHandlers has /%s, which view.BotCommands does not list", name)
		}
	}
}

// The bot answers exactly the names and aliases of view.BotCommands
// itself; every other command is Claude Code's, its built-ins included.
func TestBotCommandsComeFromTheList(t *testing.T) {
	var want []string
	for _, c := range view.BotCommands() {
		want = append(want, c.Name)
		want = append(want, c.Aliases...)
	}
	for _, name := range want {
		if !isBotCommand(name) {
			t.Errorf("/%s is in view.BotCommands but not isBotCommand: it would go to Claude", name)
		}
	}
	slices.Sort(want)
	if got := slices.Sorted(maps.Keys(ownCommands)); !slices.Equal(got, want) {
		t.Errorf("the bot's commands = %v, want those of view.BotCommands: %v", got, want)
	}
	for _, name := range (claudefiles.Files{}).BuiltinCommands() {
		if isBotCommand(name) {
			t.Errorf("/%s is both the bot's and one of Claude Code's built-ins", name)
		}
	}
	for _, name := range []string{"", "compact", "frobnicate", "Status"} {
		if isBotCommand(name) {
			t.Errorf("isBotCommand(%q) = true", name)
		}
	}
	if ownCommands["cd"] != "cwd" || ownCommands["resume"] != "sessions" {
		t.Errorf("aliases: /cd → %q, /resume → %q", ownCommands["cd"], ownCommands["resume"])
	}
}

// Only /cancel runs on the poll loop: it must reach a stuck lane. Every
// other command waits its turn in its session's lane.
func TestOnlyCancelRunsAtOnce(t *testing.T) {
	for name, h := range commandHandlers {
		if h.atOnce != (name == "cancel") {
			t.Errorf("/%s: atOnce = %v", name, h.atOnce)
		}
	}
}
