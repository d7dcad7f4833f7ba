package view

import (
	"html"
	"strings"
)

// EnginePrefix is the callback data's prefix of an /engine button,
// followed by the engine's name.
const EnginePrefix = "e:"

// EngineTitle is how an engine is called in a sentence.
func EngineTitle(name string) string {
	switch name {
	case "claude":
		return "Claude Code"
	case "codex":
		return "Codex"
	}
	return name
}

// EngineList is /engine alone: which engine this chat runs, and a button
// per engine to switch.
func EngineList(current string, names []string) (string, Keyboard) {
	text := "🤖 This chat runs <b>" + html.EscapeString(EngineTitle(current)) + "</b>. " +
		"Switching ends its session; switching back continues the one it had."
	var row []Button
	for _, n := range names {
		label := EngineTitle(n)
		if n == current {
			label = "✓ " + label
		}
		row = append(row, Button{Text: label, Data: EnginePrefix + n})
	}
	return text, Keyboard{row}
}

// EngineSwitched says the chat now runs name: resumed says its earlier
// session with that engine continues.
func EngineSwitched(name string, resumed bool) string {
	t := "🤖 This chat now runs <b>" + html.EscapeString(EngineTitle(name)) + "</b>: "
	if resumed {
		return t + "the next message continues its earlier session with it."
	}
	return t + "the next message starts a new session."
}

// EngineUnchanged: the chat runs name already.
func EngineUnchanged(name string) string {
	return "🤖 This chat runs <b>" + html.EscapeString(EngineTitle(name)) + "</b> already."
}

// EngineUnknown: no engine of that name is configured.
func EngineUnknown(name string, names []string) string {
	return "No engine <code>" + html.EscapeString(name) + "</code> here. Engines: " +
		html.EscapeString(strings.Join(names, ", ")) + "."
}

// EngineOnlyOne: the bot offers one engine; [codex] in the config adds Codex.
const EngineOnlyOne = "This bot runs one engine. A <code>[codex]</code> section in its config offers Codex too."

// EngineBusy: a switch waits for an idle chat.
const EngineBusy = "The chat is busy: switch engines once the turn has ended (or /cancel it)."
