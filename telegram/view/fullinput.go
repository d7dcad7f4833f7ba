package view

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/untether/untether/approvals"
)

// FullInput is the whole of a tool request whose prompt cannot show all
// of it: its input, and what Always allow saves when the prompt cuts that.
// The bot sends it as a text file before the prompt, so the owner has
// everything before any button can approve it.
type FullInput struct {
	Name  string // file name: command.txt for a Bash command alone, input.txt otherwise
	Text  string // the file: the command, or one section per input key (and Always allow); Visible
	Chars int    // characters of what Claude sent (the command, or the input)
	// Command says Text is a Bash command and nothing else.
	Command bool
	// Hidden says Visible wrote out invisible characters.
	Hidden bool
	// InputCut and AlwaysCut say what the prompt cannot show in full:
	// the input, what Always allow saves (then the file has a section
	// with every line of it). At least one is set.
	InputCut, AlwaysCut bool
}

// Attached is what became of a prompt's FullInput.
type Attached struct {
	File *FullInput // nil: the prompt shows the whole input
	Sent bool       // the file was delivered before the prompt
	// Folded: it went as a rich message that folds the input, not as a
	// file (Bot API 10.1).
	Folded bool
}

// PromptFullInput returns the file a tool prompt needs, or nil when the
// prompt (rendered at now, as PromptText would) shows the whole input.
// The file holds the Visible form only: a raw U+202E in it would reverse
// the text in a viewer just as it would in the prompt.
func PromptFullInput(p *approvals.Prompt, workDir string, now time.Time) *FullInput {
	if p == nil || p.Kind != approvals.KindTool {
		return nil
	}
	_, c := toolText(p, workDir, now, Attached{})
	if !c.any() {
		return nil
	}
	in := parseFields(p.Request.Input)
	if cmd, ok := bashCommand(p.Request.ToolName, p.Request.Input, in); ok && !c.always {
		text := Visible(cmd)
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		return &FullInput{Name: "command.txt", Text: text, Chars: utf8.RuneCountInString(cmd), Command: true,
			Hidden: hasHidden(cmd), InputCut: true}
	}
	var raw strings.Builder
	for _, f := range in {
		raw.WriteString("── " + f.Key + " ──\n" + fileValue(f.Raw) + "\n\n")
	}
	if len(in) == 0 { // not an object, or broken JSON: the input as it came
		raw.Write(p.Request.Input)
		raw.WriteString("\n\n")
	}
	if c.always {
		raw.WriteString("── Always allow will ──\n")
		for _, l := range p.AlwaysAllow {
			raw.WriteString("• " + l + "\n")
		}
	}
	s := raw.String()
	return &FullInput{Name: "input.txt", Text: Visible(s), Chars: utf8.RuneCount(p.Request.Input), Hidden: hasHidden(s),
		InputCut: c.input, AlwaysCut: c.always}
}

// bashCommand returns the command of a Bash input that holds nothing else
// but its description: then the file is the command alone.
func bashCommand(tool string, raw json.RawMessage, in fields) (string, bool) {
	if tool != "Bash" {
		return "", false
	}
	for _, f := range in {
		if f.Key != "command" && f.Key != "description" {
			return "", false
		}
	}
	var v struct {
		Command *string `json:"command"`
	}
	if json.Unmarshal(raw, &v) != nil || v.Command == nil {
		return "", false
	}
	return *v.Command, true
}

// fileValue is one input value in the file: a string as it is, anything
// else as indented JSON.
func fileValue(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") == nil {
		return buf.String()
	}
	return string(raw)
}

// FullInputCaption is the caption of the file (HTML, well under
// Telegram's 1024 characters).
func FullInputCaption(f *FullInput) string {
	what := "input"
	if f.Command {
		what = "command"
	}
	out := "📎 <b>The whole " + what + "</b> of the request below (" + thousands(f.Chars) + " characters)"
	if f.AlwaysCut {
		out += ", and <b>everything Always allow saves</b>"
	}
	out += "."
	if f.Hidden {
		out += "\n<i>Invisible characters are written as &lt;U+XXXX&gt;.</i>"
	}
	return out
}

// notAllShown marks a tool prompt that is cut and has no file:
// PromptText never cuts an input, or what Always allow saves, without
// saying so.
func notAllShown(c cut) string {
	switch {
	case c.input && c.always:
		return "⚠️ <b>Not all of the input, nor all that Always allow saves, is shown here.</b>"
	case c.always:
		return "⚠️ <b>Not all that Always allow saves is shown here.</b>"
	}
	return "⚠️ <b>Not all of the input is shown here.</b>"
}

// attachedNote is the line of a prompt sent after its FullInput.
func attachedNote(at Attached) string {
	f := at.File
	n := thousands(f.Chars) + " characters"
	long := "The input is too long to show here (" + n + ")"
	if f.Command {
		long = "The command is " + n + ", too long to show here"
	}
	switch {
	case f.InputCut && f.AlwaysCut:
		long += ", and so is what Always allow saves"
	case f.AlwaysCut:
		long = "What Always allow saves is too long to show here"
	}
	switch {
	case at.Sent && at.Folded:
		return "📎 <b>" + long + ".</b> All of it is in the message above (open <code>" + esc(f.Name) + "</code>): read it before you approve."
	case at.Sent:
		return "📎 <b>" + long + ".</b> All of it is in <code>" + esc(f.Name) + "</code> above: read it before you approve."
	case f.InputCut:
		return "⚠️ <b>" + long + ", and the file with all of it could not be sent.</b> " +
			"It cannot be approved from here: deny it, or it is denied when the time runs out."
	}
	return "⚠️ <b>" + long + ", and the file with all of it could not be sent.</b> " +
		"So Always allow is not offered: Approve allows this one request only."
}

// PromptKeyboardAttached is PromptKeyboard for a prompt rendered with
// PromptTextAttached. When the file could not be sent, nothing that the
// owner could not read can be pressed: with the input cut, Deny is the
// only button (approving what could not be read would mean nothing); with
// only what Always allow saves cut, Always allow goes.
func PromptKeyboardAttached(p *approvals.Prompt, prefix string, at Attached) Keyboard {
	kb := PromptKeyboard(p, prefix)
	if at.File == nil || at.Sent || p == nil {
		return kb
	}
	keep := func(k approvals.ActionKind) bool { return k != approvals.ActionAlways }
	if at.File.InputCut {
		keep = func(k approvals.ActionKind) bool { return k == approvals.ActionDeny }
	}
	cp := *p
	cp.Actions = nil
	for _, a := range p.Actions {
		if keep(a.Kind) {
			cp.Actions = append(cp.Actions, a)
		}
	}
	return PromptKeyboard(&cp, prefix)
}

// thousands renders 4466 as "4,466".
func thousands(n int) string {
	s := strconv.Itoa(max(n, 0))
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
