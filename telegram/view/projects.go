package view

import (
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/go-telegram/bot/models"
	"github.com/untether/untether/chat"
)

// Texts of the project commands: /diff, /branch, the desk hand-off and the
// command menu with the project's own Claude Code commands. Paths, branch
// names and diffs come from the disk and git; they are escaped here.

// shownPath is a path or branch name as shown: on one line, every
// invisible or direction-changing character written out (a file named
// with U+202E must not pass for another), escaped within budget.
func shownPath(s string, budget int) string { return escHead(oneLine(Visible(s)), budget) }

// ChangeStat is what a turn changed in the repository, or what is
// uncommitted: files, lines added and removed.
type ChangeStat = chat.ChangeStat

// ChangeLine says s: "3 files changed, +40 −12"; "" when nothing changed.
func ChangeLine(s ChangeStat) string {
	if s.Files == 0 {
		return ""
	}
	return plural(s.Files, "file", "files") + " changed, +" + strconv.Itoa(s.Added) + " −" + strconv.Itoa(s.Removed)
}

// DeskLine is the footer's line (with /verbose) that continues the session
// at the desk; cmd is the shell command.
func DeskLine(cmd string) string {
	if cmd = oneLine(cmd); cmd == "" {
		return ""
	}
	return "🖥 <code>" + escHead(cmd, 600) + "</code>"
}

// DiffFile is one changed file as /diff lists it.
type DiffFile struct {
	Status string // A added, D deleted, M modified, T type changed
	Path   string
	// Added and Removed count lines; negative for a binary file.
	Added, Removed int
}

// maxDiffFiles bounds the per-file lines of /diff's summary.
const maxDiffFiles = 40

// DiffSummary heads /diff: the directory, the totals and a line per file
// (the first 40). only is the file asked for ("" for all).
func DiffSummary(dir, only string, files []DiffFile) string {
	var s ChangeStat
	for _, f := range files {
		s.Files++
		if f.Added > 0 {
			s.Added += f.Added
		}
		if f.Removed > 0 {
			s.Removed += f.Removed
		}
	}
	var b strings.Builder
	b.WriteString("📝 <b>Uncommitted changes</b> in <code>" + shownPath(dir, 300) + "</code>")
	if only != "" {
		b.WriteString(" (<code>" + shownPath(only, 300) + "</code>)")
	}
	if s.Files == 0 {
		return fit(b.String() + ": none.")
	}
	b.WriteString(": " + ChangeLine(s) + "\n")
	// Room is kept for the "… and N more" line (and a short diff).
	room := MaxMessage - 600
	for i, f := range files {
		line := statusMark(f.Status) + " <code>" + shownPath(f.Path, 200) + "</code>"
		if f.Added < 0 {
			line += " binary"
		} else {
			line += " +" + strconv.Itoa(f.Added) + " −" + strconv.Itoa(f.Removed)
		}
		if i == maxDiffFiles || units(b.String())+units(line) > room {
			b.WriteString("… and " + plural(len(files)-i, "more file", "more files") + "\n")
			break
		}
		b.WriteString(line + "\n")
	}
	return fit(strings.TrimRight(b.String(), "\n"))
}

func statusMark(s string) string {
	switch s {
	case "A":
		return "🆕"
	case "D":
		return "🗑"
	}
	return "✏️"
}

// DiffWithCode is the summary followed by the diff as a code block, when
// the two fit in one message; ok is false when they do not (the diff then
// goes as a document, see DiffCaption).
func DiffWithCode(summary, patch string) (text string, ok bool) {
	if len(patch) > 4*MaxMessage {
		return "", false // escaping it only to find it too long
	}
	// Code under review must read as it is: hidden characters written out.
	patch = strings.TrimRight(Visible(patch), "\n")
	block := "\n\n<pre><code class=\"language-diff\">" + esc(patch) + "</code></pre>"
	if units(summary)+units(block) > MaxMessage {
		return "", false
	}
	return summary + block, true
}

// DiffCaption is the caption of the .diff document sent when the diff is
// too long for a message; cut says git printed more than the bot reads.
func DiffCaption(cut bool) string {
	if cut {
		return "The whole diff is too long: this file ends early (the bot reads at most 16 MB)."
	}
	return "The diff is too long for a message: here it is as a file."
}

// DiffFileName is the .diff document's name: the one file's, or the
// directory's.
func DiffFileName(dir, only string) string {
	base := only
	if base == "" {
		base = dir[strings.LastIndexAny(dir, "/\\")+1:]
	}
	var b strings.Builder
	for _, r := range base {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), "._")
	if name == "" {
		name = "changes"
	}
	if len(name) > 60 {
		name = name[:60]
	}
	return name + ".diff"
}

// NotARepo answers /diff and /branch outside a git repository.
func NotARepo(dir string) string {
	return fit("<code>" + shownPath(dir, 300) + "</code> is not in a git repository: /diff and /branch work in one.")
}

// GitFailed answers a project command whose git command failed; err is
// its text (redacted).
func GitFailed(err string) string { return fit("git failed: " + escHead(oneLine(err), 1000)) }

// WorktreeItem is one worktree of /branch's list.
type WorktreeItem struct {
	Path, Branch string
	Main         bool // the repository's main working tree
	Current      bool // this chat works in it
}

// BranchList answers /branch without a name.
func BranchList(items []WorktreeItem) string {
	var b strings.Builder
	b.WriteString("🌿 <b>Worktrees</b>\n")
	for _, w := range items {
		mark := "•"
		if w.Current {
			mark = "▶"
		}
		branch := w.Branch
		if branch == "" {
			branch = "(detached)"
		}
		b.WriteString(mark + " <b>" + shownPath(branch, 120) + "</b> <code>" + shownPath(w.Path, 300) + "</code>")
		if w.Main {
			b.WriteString(" <i>(main)</i>")
		}
		if w.Current {
			b.WriteString(" <i>← this chat</i>")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n/branch NAME moves this chat to NAME's worktree, making it if needed. Nothing is ever removed: <code>git worktree remove</code> at the desk does that.")
	return fit(b.String())
}

// BranchSwitched answers /branch NAME that moved the chat: made says the
// worktree was made now, newBranch that the branch was too.
func BranchSwitched(branch, path string, made, newBranch bool) string {
	var what string
	switch {
	case newBranch:
		what = "New branch <b>" + shownPath(branch, 120) + "</b> in a new worktree"
	case made:
		what = "Branch <b>" + shownPath(branch, 120) + "</b> checked out in a new worktree"
	default:
		what = "Branch <b>" + shownPath(branch, 120) + "</b>"
	}
	return fit("🌿 " + what + ": <code>" + shownPath(path, 300) + "</code>. This chat works there now; your next message starts a fresh Claude session in it.")
}

// BranchUnchanged answers /branch NAME naming the worktree the chat is in.
func BranchUnchanged(branch, path string) string {
	return fit("🌿 This chat already works in <b>" + shownPath(branch, 120) + "</b>: <code>" + shownPath(path, 300) + "</code>.")
}

// BranchRefused answers /branch NAME that cannot be done; why is the
// reason (redacted).
func BranchRefused(why string) string { return fit("🌿 " + escHead(oneLine(why), 1500)) }

// BranchBusy answers /branch NAME while a turn runs or waits.
const BranchBusy = "A turn is running or queued in this chat: wait for it, or /cancel it, then switch branches."

// Session hand-off.

// SessionInUse warns before resuming a session whose file another program
// wrote moments ago (a Claude Code in a terminal, most likely); age is how
// long ago.
func SessionInUse(s SessionItem, ageText string) string {
	title := escHead(oneLine(firstNonEmpty(s.Title, "(untitled)")), 80)
	return fit("⚠️ <b>" + title + "</b> was written " + esc(ageText) + " by another program: it may be open in a terminal. " +
		"If two Claude Codes continue one session at once, both write into it and its history gets mixed up. Resume it here anyway?")
}

// SessionInUseKeyboard has the confirm and cancel buttons of SessionInUse.
// Resuming anyway may mix two histories: red.
func SessionInUseKeyboard(resume, cancel string) Keyboard {
	return Keyboard{{{Text: "Resume anyway", Data: resume, Style: StyleDanger}, {Text: "Cancel", Data: cancel}}}
}

// ContinuedElsewhere tells the chat its session got prompts from another
// Claude Code (at the desk) since its last turn here.
const ContinuedElsewhere = "🖥 This session was continued elsewhere since your last message here: resuming it with that history."

// SessionResumeCancelled replaces SessionInUse when Cancel was pressed.
const SessionResumeCancelled = "Not resumed: the chat keeps its session."

// Command menu.

// MenuEntry is one of the project's Claude Code commands in the menu.
type MenuEntry struct {
	Name        string // a valid menu name (a–z, 0–9, _)
	Description string
	User        bool // the user's own, not the project's
}

// maxMenu is Telegram's limit of commands in one menu.
const maxMenu = 100

// CommandsWith is the bot's menu followed by the project's Claude Code
// commands (those whose names the bot does not use itself).
func CommandsWith(project []MenuEntry) []models.BotCommand {
	cmds := Commands()
	own := map[string]bool{}
	for _, c := range cmds {
		own[c.Command] = true
	}
	for _, e := range project {
		if own[e.Name] || len(cmds) >= maxMenu {
			continue
		}
		own[e.Name] = true
		src := "Claude Code"
		if e.User {
			src = "Claude Code (yours)"
		}
		desc := src
		if d := oneLine(e.Description); d != "" {
			desc += ": " + d
		}
		cmds = append(cmds, models.BotCommand{Command: e.Name, Description: cutUnits(desc, 256)})
	}
	return cmds
}

// cutUnits cuts plain text to n UTF-16 units, "…" included when cut.
func cutUnits(s string, n int) string {
	if len(utf16.Encode([]rune(s))) <= n {
		return s
	}
	r := []rune(s)
	for len(utf16.Encode(r)) > n-1 {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}
