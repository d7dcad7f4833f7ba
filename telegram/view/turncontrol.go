package view

import (
	"strconv"
	"strings"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/telegram/render"
)

// Stop from the draft and "Send now": controlling a running turn from the
// chat (telegram/control).

// StoppedFooter ends the partial answer of a turn the user stopped from
// its draft: the text written so far is kept as a message.
const StoppedFooter = "<i>⏹ Stopped from the draft. The session is still here: send your next message.</i>"

// StoppedParts is a turn stopped from its draft: what Claude had written
// (Markdown), kept, and that it was stopped.
func StoppedParts(markdown string) []string {
	if strings.TrimSpace(markdown) == "" {
		return []string{StoppedFooter}
	}
	return FinalParts(markdown, StoppedFooter, render.Message)
}

// SteerPrefix is the callback prefix of "⚡ Send now" under a queued
// message's note; the message's id follows.
const SteerPrefix = "sn:"

// SteerKeyboard is the "⚡ Send now" button of the note of queued message
// msgID.
func SteerKeyboard(msgID int) Keyboard {
	return Keyboard{{{Text: "⚡ Send now", Data: SteerPrefix + strconv.Itoa(msgID)}}}
}

const (
	// SteerSent: the message went to Claude, which has not taken it yet.
	SteerSent = "⚡ Sent to the running turn: Claude reads it at its next step."
	// SteerJoined: Claude took it into the running turn.
	SteerJoined = "⚡ Went into the running turn: its answer covers this message too."
	// SteerNext: the turn was already writing its answer; the message runs
	// right after it.
	SteerNext = "⚡ The turn was already writing its answer: this message runs next."
	// ToastSteered answers the press.
	ToastSteered = "Sent to the running turn"
	// ToastSteerGone: the message no longer waits (it ran, was dropped, or
	// went already).
	ToastSteerGone = "This message no longer waits"
	// ToastSteerIdle: no turn runs to send it into.
	ToastSteerIdle = "No turn is running: it runs next anyway"
	// ToastNoSteer: the engine cannot take a message mid-turn.
	ToastNoSteer = "This engine cannot take a message mid-turn"
	// ToastSteerFiles: a message with files waits for its own turn.
	ToastSteerFiles = "A message with files runs as its own turn"
	// ToastSteerFailed: writing it to Claude failed.
	ToastSteerFailed = "Could not send it now: it runs after the turn"
)

// SteerSetting answers /steer: the chat's setting as it is now.
func SteerSetting(on bool) string {
	if on {
		return "⚡ <b>Steer is on</b>: a message sent while a turn runs goes into that turn. <code>/steer off</code> queues them again."
	}
	return "<b>Steer is off</b>: a message sent while a turn runs waits for it (its note has ⚡ Send now). " +
		"<code>/steer on</code> sends them into the running turn."
}

const (
	// SteerUsage answers /steer with another argument.
	SteerUsage = "Use <code>/steer on</code> or <code>/steer off</code>."
	// NoSteer: the engine cannot take a message mid-turn.
	NoSteer = "This engine cannot take a message into a running turn: messages wait for the turn to end."
)

// SteerNote is what a queued message's note says once it was sent into
// the running turn.
func SteerNote(stage chat.SteerStage) string {
	switch stage {
	case chat.SteerJoined:
		return SteerJoined
	case chat.SteerNext:
		return SteerNext
	}
	return SteerSent
}
