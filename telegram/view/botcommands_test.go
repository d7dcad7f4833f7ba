package view

import (
	"strings"
	"testing"
	"unicode/utf16"
)

// The list of commands holds what Telegram and the bot's dispatch need:
// menu names Telegram takes (a–z, 0–9, _, at most 32), descriptions of 1
// to 256 units, and no name answering for two commands.
func TestBotCommandsList(t *testing.T) {
	seen := map[string]string{}
	claim := func(name, by string) {
		if prev, ok := seen[name]; ok {
			t.Errorf("/%s names both %s and %s", name, prev, by)
		}
		seen[name] = by
		if name == "" || len(name) > 32 || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
			t.Errorf("/%q is not a name Telegram's menu takes", name)
		}
	}
	for _, c := range BotCommands() {
		claim(c.Name, "/"+c.Name)
		for _, a := range c.Aliases {
			claim(a, "/"+c.Name)
		}
		if d := c.MenuDescription(); d == "" || len(utf16.Encode([]rune(d))) > 256 || oneLine(d) != d {
			t.Errorf("/%s: menu description %q", c.Name, d)
		}
		if c.Help == "" || oneLine(c.Help) != c.Help {
			t.Errorf("/%s: help %q", c.Name, c.Help)
		}
	}
	if n := len(Commands()); n != len(BotCommands()) || n > maxMenu {
		t.Errorf("the menu has %d commands for %d in the list (Telegram takes %d)", n, len(BotCommands()), maxMenu)
	}
}

// /help names every command of the list once, aliases never (they are
// there to be typed, not learned).
func TestHelpListsEveryCommand(t *testing.T) {
	help := HelpText(false, "")
	for _, c := range BotCommands() {
		if n := strings.Count(help, "\n"+esc(c.Usage())+" — "); n != 1 {
			t.Errorf("/help has %d lines for %s", n, c.Usage())
		}
		for _, a := range c.Aliases {
			if strings.Contains(help, "/"+a+" ") {
				t.Errorf("/help names the alias /%s", a)
			}
		}
	}
}
