package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/human"
	"github.com/untether/untether/telegram/render"
	"github.com/untether/untether/toolkinds"
)

// Budgets of the fixed pieces of a tool prompt, in escaped UTF-16 units.
// What they leave (at least about 1500 units) goes to the preview.
const (
	maxNoteUnits       = 400
	maxAlwaysLines     = 8
	maxAlwaysLineUnits = 250
)

// PromptText renders a pending request as message parts, sent in order.
// A tool prompt or a question is always one part. A plan may need several:
// attach PromptKeyboard to the LAST part, which also carries the deadline.
// workDir makes file paths relative; now turns p.Deadline into "answer
// within 10 min" (a zero now or Deadline leaves that line out). A tool
// prompt that cannot show the whole input says so; the bot uses
// PromptTextAttached to send that input along.
func PromptText(p *approvals.Prompt, workDir string, now time.Time) []string {
	return PromptTextAttached(p, workDir, now, Attached{})
}

// PromptTextAttached is PromptText for a prompt sent after the file with
// its whole input (see PromptFullInput): the prompt says where that file
// is, or that it could not be sent.
func PromptTextAttached(p *approvals.Prompt, workDir string, now time.Time, at Attached) []string {
	if p == nil {
		return nil
	}
	switch p.Kind {
	case approvals.KindPlan:
		return planParts(p, workDir, now)
	case approvals.KindQuestion:
		return []string{QuestionText(p.Question)}
	}
	text, _ := toolText(p, workDir, now, at)
	return []string{text}
}

// cut says what a tool prompt, rendered without a file, leaves out.
type cut struct {
	input  bool // part of the tool input
	always bool // part of what Always allow saves
}

func (c cut) any() bool { return c.input || c.always }

// toolText renders a tool prompt and says what it leaves out (at.File ==
// nil; with a file the prompt points to it and the cut is the file's).
func toolText(p *approvals.Prompt, workDir string, now time.Time, at Attached) (string, cut) {
	req := p.Request
	in := parseFields(req.Input)
	tv := describeTool(req.ToolName, in, Visible(req.Description), workDir)

	var pieces []string // everything but the preview, in order after it
	if req.SafetyCheck() {
		pieces = append(pieces, safetyLine)
	}
	if len(p.Outside) > 0 {
		pieces = append(pieces, outsideLine(p.Outside))
	}
	if bp := blockedPath(Visible(req.BlockedPath), tv.path, workDir); bp != "" && !slices.Contains(p.Outside, filepath.Clean(req.BlockedPath)) {
		pieces = append(pieces, "📁 Path: <code>"+escHead(bp, maxPathUnits)+"</code>")
	}
	alwaysHTML, alwaysAll := alwaysLines(p.AlwaysAllow)
	if alwaysHTML != "" {
		pieces = append(pieces, alwaysHTML)
	}
	if d := deadlineLine(p.Deadline, now); d != "" {
		pieces = append(pieces, d)
	}

	top := tv.head
	if l := machineLine(req.Where.Name); l != "" {
		top += "\n" + l
	}
	if n := strings.TrimSpace(clean(tv.note)); n != "" {
		top += "\n<i>" + escHead(n, maxNoteUnits) + "</i>"
	}
	rest := strings.Join(pieces, "\n\n")
	build := func(note string) (string, cut) {
		head := top
		if note != "" {
			head += "\n\n" + note
		}
		budget := MaxMessage - units(head) - units(rest) - len("\n\n\n\n")
		preview, complete := tv.body(in, budget)
		complete = complete && wholeInput(req.Input, in)
		out := head
		for _, s := range []string{preview, rest} {
			if s != "" {
				out += "\n\n" + s
			}
		}
		return fit(out), cut{input: !complete, always: !alwaysAll}
	}
	if at.File != nil {
		out, _ := build(attachedNote(at))
		return out, cut{input: at.File.InputCut, always: at.File.AlwaysCut}
	}
	out, c := build("")
	if !c.any() {
		return out, c
	}
	// Never a cut prompt that does not say so. The note takes room from
	// the preview, so what is cut is measured again with it (it can only
	// grow, so once is enough).
	note := notAllShown(c)
	if out, c = build(note); notAllShown(c) != note {
		out, c = build(notAllShown(c))
	}
	return out, c
}

// alwaysLines renders what Always allow saves, one bullet per line of
// lines; all says nothing was cut, left out or folded onto one line.
func alwaysLines(lines []string) (html string, all bool) {
	if len(lines) == 0 {
		return "", true
	}
	out := []string{"🔓 <i>Always allow will:</i>"}
	all = true
	for i, l := range lines {
		if i == maxAlwaysLines {
			out = append(out, "• … "+plural(len(lines)-i, "more change", "more changes"))
			all = false
			break
		}
		v := Visible(l)
		one := oneLine(v)
		all = all && one == clean(v) && escTotal(one) <= maxAlwaysLineUnits
		out = append(out, "• "+escHead(one, maxAlwaysLineUnits))
	}
	return strings.Join(out, "\n"), all
}

// wholeInput reports whether in (parseFields of raw) is all of raw: an
// input that is not a JSON object, or is broken, is not shown, or not all.
func wholeInput(raw json.RawMessage, in fields) bool {
	if len(bytes.TrimSpace(raw)) == 0 {
		return true
	}
	if !json.Valid(raw) {
		return false
	}
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && len(m) == len(in)
}

// blockedPath returns the path to show for the request's blocked_path, or
// "" when there is none or it is the file the headline already names.
func blockedPath(blocked, shown, workDir string) string {
	if blocked == "" {
		return ""
	}
	if shown != "" && filepath.Clean(blocked) == filepath.Clean(shown) {
		return ""
	}
	return toolkinds.RelPath(blocked, workDir)
}

// safetyLine says why a request is asked although a rule or mode would
// allow it: Claude Code's own safety checks flagged it (.git/hooks,
// .claude/settings.json, rm -rf /…).
const safetyLine = "🛡 <b>Claude Code flags this as sensitive</b>: it is always asked, whatever your allow list or mode."

// outsideLine says why a file tool was asked: the first path outside the
// project, resolved (links followed), as it will be opened.
func outsideLine(paths []string) string {
	line := "⚠️ Outside the project: <code>" + escHead(Visible(paths[0]), maxPathUnits) + "</code>"
	if len(paths) > 1 {
		line += fmt.Sprintf(" (and %d more)", len(paths)-1)
	}
	return line
}

// machineLine names the machine a request runs on when it is not the
// bot's own ("" there): what is approved runs there.
func machineLine(name string) string {
	if name == "" {
		return ""
	}
	return "🖥 On host <b>" + esc(clip(oneLine(name), 64)) + "</b>"
}

// deadlineLine says how long the user has, rounded up (seconds in the
// last minute).
func deadlineLine(deadline, now time.Time) string {
	if deadline.IsZero() || now.IsZero() {
		return ""
	}
	left := deadline.Sub(now)
	if left <= 0 {
		return ""
	}
	return "<i>⌛ Answer within " + human.DurationUp(left) + ", or it is denied.</i>"
}

func planParts(p *approvals.Prompt, workDir string, now time.Time) []string {
	body := render.Markdown(clean(p.Plan))
	if strings.TrimSpace(body) == "" {
		body = "<i>(the plan has no text)</i>"
	}
	tail := []string{"<i>Approve to let Claude start. Pause &amp; Outline asks it to write the steps out here first.</i>"}
	if p.PlanFile != "" {
		tail = append([]string{"📄 Plan file: <code>" + escHead(toolkinds.RelPath(p.PlanFile, workDir), maxPathUnits) + "</code>"}, tail...)
	}
	if l := machineLine(p.Request.Where.Name); l != "" {
		tail = append([]string{l}, tail...)
	}
	if d := deadlineLine(p.Deadline, now); d != "" {
		tail = append(tail, d)
	}
	html := "📋 <b>Claude's plan</b>\n\n" + body + "\n\n" + strings.Join(tail, "\n")
	return render.Split(html, MaxMessage)
}

// Button labels of approval prompts.
const (
	LabelApprove = "✅ Approve"
	LabelDeny    = "❌ Deny"
	LabelAlways  = "🔓 Always allow"
	LabelOutline = "📋 Pause & Outline Plan"
)

// PromptKeyboard is the keyboard of a pending request; each button's
// callback data is prefix + its token (keep prefix short: data is limited to
// 64 bytes and tokens take 16). Approve and Deny share the first row, every
// other action gets its own row. Questions get QuestionKeyboard.
func PromptKeyboard(p *approvals.Prompt, prefix string) Keyboard {
	if p == nil {
		return nil
	}
	if p.Kind == approvals.KindQuestion {
		return QuestionKeyboard(p.Question, prefix)
	}
	var first []Button
	var kb Keyboard
	for _, a := range p.Actions {
		b := Button{Text: actionLabel(a), Data: prefix + a.Token, Style: actionStyle(a.Kind)}
		switch a.Kind {
		case approvals.ActionApprove, approvals.ActionDeny:
			first = append(first, b)
		default:
			kb = append(kb, []Button{b})
		}
	}
	if len(first) > 0 {
		kb = append(Keyboard{first}, kb...)
	}
	return kb
}

// actionStyle colours a prompt's buttons: Approve green, Deny red, Pause &
// Outline blue (it keeps Claude waiting for more); Always allow keeps the
// default colour, so it never looks like the plain yes.
func actionStyle(k approvals.ActionKind) string {
	switch k {
	case approvals.ActionApprove:
		return StyleSuccess
	case approvals.ActionDeny:
		return StyleDanger
	case approvals.ActionOutline:
		return StylePrimary
	}
	return ""
}

func actionLabel(a approvals.Action) string {
	switch a.Kind {
	case approvals.ActionApprove:
		return LabelApprove
	case approvals.ActionDeny:
		return LabelDeny
	case approvals.ActionAlways:
		return LabelAlways
	case approvals.ActionOutline:
		return LabelOutline
	}
	if l := clip(oneLine(a.Label), maxButtonRunes); l != "" {
		return l
	}
	return string(a.Kind)
}
