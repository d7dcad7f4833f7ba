package view

import (
	"time"

	"github.com/untether/untether/human"
	"github.com/untether/untether/toolkinds"
)

// A tool that has said nothing for a while ([claude] stall_after): the
// progress message's line about it, and the one message that asks the
// owner whether to keep waiting.

// Stall is a tool running without any news from Claude for a while.
type Stall struct {
	Kind  toolkinds.Kind
	Title string        // the tool's title, as in the action lines
	For   time.Duration // since the last news from Claude
	// Busy says the tool's processes use the CPU (a build, tests): it
	// works, it is not stuck.
	Busy bool
}

func (s Stall) what() string {
	title := oneLine(Visible(s.Title))
	if title == "" {
		title = "a tool"
	}
	return kindIcon(s.Kind) + " " + clip(title, maxTitleRunes)
}

func (s Stall) line() string {
	if s.Busy {
		return esc(s.what() + " — running for " + human.Duration(s.For) + ", busy")
	}
	return esc("⚠️ " + s.what() + " — no news for " + human.Duration(s.For) + ", and no CPU use")
}

// StallText asks the owner about a tool that seems stuck: no news from
// Claude for a while and its processes idle.
func StallText(s Stall) string {
	return "⚠️ <b>Is it stuck?</b>\n" + esc(s.what()) + " has been running for " + esc(human.Duration(s.For)) +
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
	head := "⚠️ " + esc(s.what()) + " ran for " + esc(human.Duration(s.For)) + " without news."
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
