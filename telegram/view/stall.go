package view

import (
	"github.com/untether/untether/chat/turnstate"
	"github.com/untether/untether/human"
)

// A tool that has said nothing for a while ([claude] stall_after): the
// progress message's line about it, and the one message that asks the
// owner whether to keep waiting.

// Stall is a stalled tool (the core's value).
type Stall = turnstate.Stall

func stallWhat(s Stall) string {
	title := oneLine(Visible(s.Title))
	if title == "" {
		title = "a tool"
	}
	return kindIcon(s.Kind) + " " + clip(title, maxTitleRunes)
}

func stallLine(s Stall) string {
	if s.Busy {
		return esc(stallWhat(s) + " — running for " + human.Duration(s.For) + ", busy")
	}
	return esc("⚠️ " + stallWhat(s) + " — no news for " + human.Duration(s.For) + ", and no CPU use")
}

// StallText asks the owner about a tool that seems stuck: no news from
// Claude for a while and its processes idle.
func StallText(s Stall) string {
	return "⚠️ <b>Is it stuck?</b>\n" + esc(stallWhat(s)) + " has been running for " + esc(human.Duration(s.For)) +
		" with no news and no CPU use. It may be waiting for something that will not come " +
		"(a password, a question in the terminal, a server that does not answer).\n\n" +
		"Keep waiting, or cancel the turn."
}

// StallKeyboard offers Keep waiting and Cancel, with their callback data.
func StallKeyboard(keepData, cancelData string) Keyboard {
	return Keyboard{{{Text: "⏳ Keep waiting", Data: keepData}, {Text: "✖ Cancel", Data: cancelData, Style: StyleDanger}}}
}

// How a stall question ended, for StallSettled.
const (
	StallKept     = iota // the owner chose to keep waiting
	StallMovedOn         // Claude went on by itself
	StallTurnOver        // the turn ended (cancelled, failed, done)
)

// StallSettled is the stall question once answered or moot; who pressed
// Keep waiting (StallKept) is named.
func StallSettled(s Stall, how int, who string) string {
	head := "⚠️ " + esc(stallWhat(s)) + " ran for " + esc(human.Duration(s.For)) + " without news."
	switch how {
	case StallKept:
		line := "⏳ Keeping on waiting"
		if who != "" {
			line += " (" + esc(oneLine(who)) + ")"
		}
		return head + "\n" + line + "."
	case StallMovedOn:
		return head + "\n✓ Claude went on."
	}
	return head + "\nThe turn is over."
}

// ToastKeepWaiting answers a press on Keep waiting.
const ToastKeepWaiting = "Keeping on waiting"
