package view

import (
	"strconv"
	"strings"
	"time"

	"github.com/untether/untether/chat/turnstate"
	"github.com/untether/untether/human"
	"github.com/untether/untether/toolkinds"
)

// ActionState is where one action of a turn stands (the core's value).
type ActionState = turnstate.ActionState

// Where an action stands.
const (
	Running = turnstate.Running
	Done    = turnstate.Done
	Failed  = turnstate.Failed
)

// Action is one tool call of a turn, as the core knows it.
type Action = turnstate.Action

// The states of a turn, as the progress message names them.
const (
	StateStarting      = "starting"
	StateWorking       = "working"
	StateWaiting       = "waiting for approval"
	StateCancelling    = "cancelling"
	StateCancelled     = "cancelled"
	StateDone          = "done"
	StateFailed        = "failed"
	StateBudgetStopped = "stopped at the spending limit"
	StateLimitStopped  = "stopped at a usage limit"
	StateShuttingDown  = "stopped: the bot is shutting down"
)

// phaseStates are the words of the core's phases.
var phaseStates = map[turnstate.Phase]string{
	turnstate.PhaseStarting:      StateStarting,
	turnstate.PhaseWorking:       StateWorking,
	turnstate.PhaseWaiting:       StateWaiting,
	turnstate.PhaseCancelling:    StateCancelling,
	turnstate.PhaseCancelled:     StateCancelled,
	turnstate.PhaseDone:          StateDone,
	turnstate.PhaseFailed:        StateFailed,
	turnstate.PhaseBudgetStopped: StateBudgetStopped,
	turnstate.PhaseLimitStopped:  StateLimitStopped,
	turnstate.PhaseShuttingDown:  StateShuttingDown,
}

// PhaseState is how the progress message names a phase of a turn.
func PhaseState(p turnstate.Phase) string {
	if s, ok := phaseStates[p]; ok {
		return s
	}
	return string(p)
}

// Progress is everything the progress message shows.
type Progress struct {
	// State is one of the State constants, or another short phrase
	// ("interrupted by restart", "queued"), shown as given.
	State   string
	Elapsed time.Duration
	Steps   int      // actions so far; 0 hides the count
	Actions []Action // the whole turn; the view shows the last MaxActions
	// MaxActions is how many action lines to show (default
	// DefaultMaxActions). Fewer are shown if the message would not fit.
	MaxActions     int
	Verbose        bool // kind label and result detail on each line
	Model          string
	PermissionMode string
	LastText       string // last assistant text, shown as a short teaser
	Queued         int    // messages waiting behind this turn
	// Streaming is the text Claude is writing (Markdown, redacted); when
	// set, its latest paragraph replaces the teaser (see StreamParagraph).
	Streaming string
	// Lines on what the owner cannot see (limits.go, stall.go); nil hides.
	Limit      *Limit
	Retry      *Retry
	Compaction *Compaction
	Stall      *Stall
}

// DefaultMaxActions is used when Progress.MaxActions is not positive.
const DefaultMaxActions = 8

// Caps on the pieces of a progress message, in runes.
const (
	maxTitleRunes  = 120
	maxDetailRunes = 200
	maxTeaserRunes = 200
	maxFooterRunes = 120
	maxStateRunes  = 40
	maxDetailUnits = 300 // escaped units of one detail line
)

var stateMarks = map[string]string{
	StateStarting:            "⏳",
	StateWorking:             "⏳",
	StateWaiting:             "✋",
	StateCancelling:          "✖",
	StateDone:                "✓",
	StateFailed:              "✗",
	"interrupted by restart": "⏹",
	"queued":                 "🕒",
}

func stateMark(state string) string {
	if m, ok := stateMarks[state]; ok {
		return m
	}
	return "⏳"
}

var kindIcons = map[toolkinds.Kind]string{
	toolkinds.Command:    "💻",
	toolkinds.FileChange: "📝",
	toolkinds.Tool:       "🔧",
	toolkinds.WebSearch:  "🌐",
	toolkinds.Note:       "🗒",
	toolkinds.Subagent:   "🤖",
}

var kindLabels = map[toolkinds.Kind]string{
	toolkinds.Command:    "command",
	toolkinds.FileChange: "file",
	toolkinds.Tool:       "tool",
	toolkinds.WebSearch:  "web",
	toolkinds.Note:       "note",
	toolkinds.Subagent:   "subagent",
}

func kindIcon(k toolkinds.Kind) string {
	if i, ok := kindIcons[k]; ok {
		return i
	}
	return "🔧"
}

func actionMark(s ActionState) string {
	switch s {
	case Done:
		return "✓"
	case Failed:
		return "✗"
	}
	return "▶"
}

// FormatElapsed renders a duration the way the progress header shows it:
// "8s", "1m 05s", "1h 02m". Negative durations count as zero.
func FormatElapsed(d time.Duration) string { return human.Elapsed(d) }

// SkippedNote answers a message that waited longer than max_backlog_age
// while the bot was down.
func SkippedNote(age time.Duration) string {
	return "Skipped: sent while I was offline, " + human.Duration(age) + " ago — send it again to run it."
}

// ProgressText renders the progress message:
//
//	⏳ working · 1m 05s · 6 steps
//	… 4 earlier
//	✓ 💻 go test ./...
//	▶ 📝 main.go
//	“last assistant text…”
//	📥 2 messages queued
//	model · permission mode
func ProgressText(p Progress) string {
	show := p.MaxActions
	if show <= 0 {
		show = DefaultMaxActions
	}
	show = min(show, len(p.Actions))

	head := progressHeader(p) + progressNotes(p)
	var tail strings.Builder
	if p.Streaming != "" {
		tail.WriteString(streamBlock(p.Streaming))
	} else if t := oneLine(p.LastText); t != "" {
		tail.WriteString("\n\n<i>“" + esc(clip(t, maxTeaserRunes)) + "”</i>")
	}
	if p.Queued > 0 {
		tail.WriteString("\n📥 " + plural(p.Queued, "message", "messages") + " queued")
	}
	if f := progressFooter(p); f != "" {
		tail.WriteString("\n" + f)
	}

	// Take action lines from the newest back while they fit, keeping room
	// for the "… N earlier" line.
	acts := p.Actions[len(p.Actions)-show:]
	budget := MaxMessage - units(head) - units(tail.String()) - units(earlierLine(len(p.Actions)))
	var lines []string
	for i := len(acts) - 1; i >= 0; i-- {
		line := "\n" + actionLine(acts[i], p.Verbose)
		if budget -= units(line); budget < 0 {
			break
		}
		lines = append(lines, line)
	}

	var b strings.Builder
	b.WriteString(head)
	if earlier := len(p.Actions) - len(lines); earlier > 0 {
		b.WriteString(earlierLine(earlier))
	}
	for i := len(lines) - 1; i >= 0; i-- {
		b.WriteString(lines[i])
	}
	b.WriteString(tail.String())
	return fit(b.String())
}

func earlierLine(n int) string { return "\n<i>… " + strconv.Itoa(n) + " earlier</i>" }

func progressHeader(p Progress) string {
	state := oneLine(p.State)
	if state == "" {
		state = "working"
	}
	parts := []string{stateMark(state) + " <b>" + esc(clip(state, maxStateRunes)) + "</b>", FormatElapsed(p.Elapsed)}
	if p.Steps > 0 {
		parts = append(parts, plural(p.Steps, "step", "steps"))
	}
	return strings.Join(parts, " · ")
}

func actionLine(a Action, verbose bool) string {
	line := actionMark(a.State) + " " + kindIcon(a.Kind) + " "
	if verbose {
		if l, ok := kindLabels[a.Kind]; ok {
			line += "<i>" + l + "</i> "
		}
	}
	title := oneLine(Visible(a.Title)) // a title quotes the tool input
	if title == "" {
		title = "(untitled)"
	}
	line += esc(clip(title, maxTitleRunes))
	if verbose {
		if d := oneLine(a.Detail); d != "" {
			line += "\n    <i>" + escHead(clip(d, maxDetailRunes), maxDetailUnits) + "</i>"
		}
	}
	return line
}

func progressFooter(p Progress) string {
	var parts []string
	if m := oneLine(p.Model); m != "" {
		parts = append(parts, m)
	}
	if m := oneLine(p.PermissionMode); m != "" {
		parts = append(parts, m)
	}
	if len(parts) == 0 {
		return ""
	}
	return "<i>" + esc(clip(strings.Join(parts, " · "), maxFooterRunes)) + "</i>"
}

// ProgressKeyboard is the keyboard of a running turn: one Cancel button
// with cancelData as its callback data. Nil when cancelData is empty.
func ProgressKeyboard(cancelData string) Keyboard {
	if cancelData == "" {
		return nil
	}
	return Keyboard{{{Text: "✖ Cancel", Data: cancelData, Style: StyleDanger}}}
}

// ProgressSummary is the one-line text (HTML-safe) a progress message is
// edited to when the turn is over, e.g. "✓ done · 42s · 7 steps" or
// "✗ cancelled · 3s · 1 step". ok selects done; otherwise p.State names
// what happened ("failed" when it still names a running state).
func ProgressSummary(p Progress, ok bool) string {
	word := "done"
	mark := "✓"
	if !ok {
		mark = "✗"
		switch s := oneLine(p.State); s {
		case "", StateStarting, StateWorking, StateWaiting, "queued", StateDone:
			word = StateFailed
		case StateCancelling:
			word = StateCancelled
		default:
			word = clip(s, maxStateRunes)
		}
	}
	parts := []string{mark + " " + esc(word), FormatElapsed(p.Elapsed)}
	if p.Steps > 0 {
		parts = append(parts, plural(p.Steps, "step", "steps"))
	}
	return strings.Join(parts, " · ")
}
