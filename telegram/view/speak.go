package view

import (
	"fmt"

	"github.com/untether/untether/speak"
)

// /speak: when answers also come as voice notes.
const (
	SpeakOn   = speak.ModeOn   // every final answer
	SpeakOff  = speak.ModeOff  // never
	SpeakAuto = speak.ModeAuto // answers to voice notes (the default)
)

// SourceDefault is where a setting comes from when neither the chat nor
// the config set it.
const SourceDefault = "default"

// ValidSpeak reports whether mode is one /speak takes.
func ValidSpeak(mode string) bool { return speak.ValidMode(mode) }

// UsageSpeak answers /speak with an argument it does not take.
const UsageSpeak = "Usage: /speak on | off | auto | show | clear"

// SpeakShow answers /speak show; ready says a speech backend is
// configured.
func SpeakShow(mode, source string, ready bool) string {
	msg := settingLine("Voice replies", mode, source)
	switch mode {
	case SpeakOn:
		msg += " Every answer also comes as a voice note, after its text."
	case SpeakAuto:
		msg += " An answer to a voice note also comes as a voice note, after its text."
	default:
		msg += " Answers come as text only."
	}
	if !ready && mode != SpeakOff {
		msg += " No speech backend is configured, so none is sent: set speak_url or speak_command in [voice] of the config."
	}
	return fit(msg)
}

// SpeakSet answers /speak on|off|auto.
func SpeakSet(mode, source string, ready bool) string {
	return fit(SpeakShow(mode, source, ready) + " It applies from the next answer.")
}

// SpeakPaused tells a chat, once, that its automatic voice replies are
// paused after failures in a row.
func SpeakPaused(failures int, pause string) string {
	return fit(fmt.Sprintf("🔇 Voice replies failed %d times in a row, so answers to voice notes come as text only for %s. "+
		"/speak on still tries every answer.", failures, esc(pause)))
}
