package view

import (
	"strings"
	"time"

	"github.com/untether/untether/human"
)

// Texts of files going out (send_file, /get) and of voice notes coming in.
// Paths, captions and transcripts are the caller's, raw (already
// redacted); they are escaped here.

// MaxCaption is Telegram's limit on a caption's visible text.
const MaxCaption = 1024

// FileCaption is the caption Claude gave a file, escaped and cut to fit.
func FileCaption(caption string) string {
	return escHead(strings.TrimSpace(caption), MaxCaption)
}

// GetUsage answers /get without a path.
const GetUsage = "Usage: /get &lt;path&gt; — a file of this chat's project (relative paths start in its working directory)."

// GetRefused answers /get with a path that cannot be sent; why says so.
func GetRefused(why string) string { return fit("Not sent: " + esc(why)) }

// GetFolder answers /get with a folder: some of its files, to ask for one.
func GetFolder(dir string, names []string, more bool) string {
	var b strings.Builder
	b.WriteString("<code>" + escHead(dir, 1000) + "</code> is a folder; /get sends one file. ")
	if len(names) == 0 {
		b.WriteString("It has no files.")
		return fit(b.String())
	}
	b.WriteString("Its files include:\n")
	for _, n := range names {
		b.WriteString("• <code>" + escHead(n, 200) + "</code>\n")
	}
	if more {
		b.WriteString("…\n")
	}
	b.WriteString("Send e.g. /get " + escHead(strings.TrimSuffix(dir, "/")+"/"+names[0], 1000))
	return fit(b.String())
}

// GetNotSent answers /get whose file Telegram did not take.
func GetNotSent(err string) string { return fit("Could not send the file: " + esc(err)) }

// VoiceHeard is the first reply to a voice note: what will run as the
// prompt, so a misheard one can be cancelled.
func VoiceHeard(text string) string {
	return fit("🎙 " + escHead(text, MaxMessage-100) + "\n<i>/cancel if I misheard.</i>")
}

// VoiceOff answers a voice note when no transcription is configured.
const VoiceOff = "I can't listen to voice messages yet: the owner can set up transcription in the [voice] section of the config (see docs/setup.md)."

// VoiceTooLong answers a voice note over the configured duration.
func VoiceTooLong(d, limit time.Duration) string {
	return "That voice message is " + human.DurationUp(d) + " long; the limit is " + human.Duration(limit) + ". Send a shorter one, or type it."
}

// VoiceTooBig answers a voice note over the configured size.
func VoiceTooBig(size, limit int64) string {
	return "That recording is " + human.Bytes(size) + "; the limit is " + human.Bytes(limit) + ". Send a shorter one, or type it."
}

// VoiceFailed: the transcription failed; nothing ran.
func VoiceFailed(detail string) TurnError {
	return TurnError{What: "Could not transcribe your voice message", Detail: detail,
		Hint: "Nothing was run. Try again, or type the message."}
}

// VoiceEmpty: the transcription came back without words.
func VoiceEmpty() TurnError {
	return TurnError{What: "I heard no words in your voice message", Hint: "Nothing was run. Try again, or type the message."}
}
