package view

import (
	"strings"
	"testing"
)

// Every note and command reply is valid Telegram HTML whatever the values
// it shows (paths, names and errors with <, & and quotes).
func TestNotesAreHTML(t *testing.T) {
	nasty := `/tmp/<b>a & "b"</b>`
	texts := map[string]string{
		"QueuedNote":       QueuedNote(2),
		"WaitingForSlot":   WaitingForSlot(4),
		"WaitingToStart":   WaitingToStart(3),
		"Unsupported":      Unsupported(ContentSticker),
		"Unsupported?":     Unsupported("hologram"),
		"FileTooBig":       FileTooBig(21<<20, 20<<20),
		"WorkDirFallback":  WorkDirFallback(nasty, DirLeadsOutside, nasty, nasty),
		"CancelReply":      CancelReply(true),
		"NewSessionReply":  NewSessionReply(3),
		"UnknownCommand":   UnknownCommand(nasty),
		"SettingNotSaved":  SettingNotSaved(nasty),
		"PlanModeSet":      PlanModeSet("on", "chat setting", true, nasty),
		"ModelShow":        ModelShow(nasty, "chat setting"),
		"ModelSet":         ModelSet("", "config"),
		"VerboseShow":      VerboseShow(true, "config"),
		"WorkDirChanged":   WorkDirChanged(nasty, "chat setting"),
		"WorkDirUnchanged": WorkDirUnchanged(nasty, "config"),
		"WorkDirRefused":   WorkDirRefused(nasty + " does not exist"),
		"InvisibleDir":     WorkDirRefused(InvisibleDir(nasty + "\u202e")),
		"DirInvisible":     WorkDirFallback(nasty+"\u202e", DirInvisible, nasty, nasty),
		"UsageModel":       UsageModel,
		"ClaudeExited":     ErrorText(ClaudeExited(1, "SIGKILL", "", nasty)),
		"DownloadFailed":   ErrorText(DownloadFailed(nasty)),
	}
	for name, text := range texts {
		checkHTML(t, name, text)
		if strings.Contains(text, "<b>a") {
			t.Errorf("%s shows a value unescaped: %s", name, text)
		}
	}
	if got := FileTooBig(21<<20, 20<<20); !strings.HasPrefix(got, "That file is 21.0 MB, and Telegram lets bots download files of up to 20 MB") {
		t.Errorf("FileTooBig = %q", got)
	}
	if got := ErrorText(ClaudeExited(137, "SIGKILL", "", "")); !strings.Contains(got, "exit code 137, signal SIGKILL") {
		t.Errorf("ClaudeExited without an error should name the exit code and signal: %s", got)
	}
}
