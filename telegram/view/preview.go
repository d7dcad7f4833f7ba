package view

import (
	"strings"
	"unicode/utf8"

	"github.com/untether/untether/toolkinds"
)

// Limits of the tool previews.
const (
	maxDiffLines     = 20
	maxWriteLines    = 15
	maxLineRunes     = 160 // one line of a diff or file preview
	maxArgs          = 8   // key: value lines of other tools
	maxArgValueRunes = 200
	maxArgUnits      = 400 // escaped units of one key: value line
	maxPathUnits     = 300
)

// toolView is what a tool prompt shows about the tool call.
type toolView struct {
	head    string // HTML headline
	headCut bool   // the headline had to cut the file path
	note    string // plain text, shown in italics (the Bash description)
	path    string // the file the tool acts on, as given (to judge blocked_path)
	// shown are the input keys the preview stands for; every other key gets
	// a "key: value" line under it. Nil: the preview shows every key.
	shown []string
	// preview renders the details within budget UTF-16 units ("" if none)
	// and says whether they are complete: nothing of what it stands for was
	// cut or left out.
	preview func(budget int) (string, bool)
}

// body is the preview and the lines of the keys it does not stand for,
// within budget; complete says the prompt shows the whole input.
func (tv toolView) body(in fields, budget int) (html string, complete bool) {
	extra, extraOK := "", true
	if tv.shown != nil {
		if rest := in.without(tv.shown...); len(rest) > 0 {
			extra, extraOK = argLines(rest, budget/3)
		}
	}
	room := budget
	if extra != "" {
		room -= units(extra) + len("\n\n")
	}
	main, ok := tv.preview(room)
	switch {
	case main == "":
		html = extra
	case extra == "":
		html = main
	default:
		html = main + "\n\n" + extra
	}
	return html, ok && extraOK && !tv.headCut
}

func describeTool(tool string, in fields, description, workDir string) toolView {
	filePath := in.first("file_path", "notebook_path", "path")
	file, fileCut := "a file", false
	if strings.TrimSpace(filePath) != "" {
		rel := toolkinds.RelPath(filePath, workDir)
		file = "<code>" + escHead(rel, maxPathUnits) + "</code>"
		fileCut = escTotal(clean(rel)) > maxPathUnits
	}
	switch tool {
	case "Bash":
		note := in.str("description")
		if note == "" {
			note = description
		}
		cmd := in.str("command")
		return toolView{
			head:    "🔐 <b>Claude wants to run a command</b>",
			note:    note,
			shown:   []string{"command", "description"},
			preview: func(budget int) (string, bool) { return preText(cmd, "bash", budget) },
		}
	case "Edit":
		e := edit{Old: in.str("old_string"), New: in.str("new_string"), ReplaceAll: in.boolean("replace_all")}
		head := "🔐 <b>Claude wants to edit</b> " + file
		if e.ReplaceAll {
			head += " (every occurrence)"
		}
		return toolView{head: head, headCut: fileCut, path: filePath,
			shown: []string{"file_path", "old_string", "new_string", "replace_all"},
			preview: func(budget int) (string, bool) {
				lines, all := diffLines(e.Old, e.New, maxDiffLines)
				html, ok := preLines(lines, "diff", budget)
				return html, all && ok
			}}
	case "MultiEdit":
		es, known := in.edits()
		head := "🔐 <b>Claude wants to edit</b> " + file + " · " + plural(len(es), "edit", "edits")
		if len(es) > 0 && es[0].ReplaceAll {
			head += " (the first: every occurrence)"
			if len(es) == 1 {
				head = "🔐 <b>Claude wants to edit</b> " + file + " · 1 edit (every occurrence)"
			}
		}
		return toolView{head: head, headCut: fileCut, path: filePath, shown: []string{"file_path", "edits"},
			preview: func(budget int) (string, bool) {
				if len(es) == 0 {
					return "", false // nothing readable: the file has what there is
				}
				more := ""
				if len(es) > 1 {
					more = "\n<i>… and " + plural(len(es)-1, "more edit", "more edits") + "</i>"
				}
				lines, all := diffLines(es[0].Old, es[0].New, maxDiffLines)
				html, ok := preLines(lines, "diff", budget-units(more))
				return html + more, all && ok && known && len(es) == 1
			}}
	case "Write", "NotebookEdit":
		content := in.first("content", "new_source")
		verb := "write"
		if tool == "NotebookEdit" {
			verb = "edit the notebook"
		}
		lines := splitLines(content)
		head := "🔐 <b>Claude wants to " + verb + "</b> " + file + " · " + plural(len(lines), "line", "lines")
		return toolView{head: head, headCut: fileCut, path: filePath,
			shown: []string{"file_path", "notebook_path", "path", "content", "new_source"},
			preview: func(budget int) (string, bool) {
				shown := lines
				if len(shown) > maxWriteLines {
					shown = append(shown[:maxWriteLines:maxWriteLines], "… "+plural(len(lines)-maxWriteLines, "more line", "more lines"))
				}
				html, ok := preLines(shown, "", budget)
				return html, ok && len(lines) <= maxWriteLines
			}}
	case "Read":
		rest := in.without("file_path", "path")
		return toolView{head: "🔐 <b>Claude wants to read</b> " + file, headCut: fileCut, path: filePath,
			preview: func(budget int) (string, bool) { return argLines(rest, budget) }}
	}
	var head string
	switch tool {
	case "WebFetch":
		head = "🔐 <b>Claude wants to fetch a web page</b>"
	case "WebSearch":
		head = "🔐 <b>Claude wants to search the web</b>"
	case "Task", "Agent":
		head = "🔐 <b>Claude wants to start a subagent</b>"
	default:
		_, name := toolkinds.Describe(tool, nil, "") // "server: name" for MCP tools
		if strings.HasPrefix(tool, "mcp__") {
			head = "🔐 <b>Claude wants to use an MCP tool</b> <code>" + escHead(Visible(name), maxPathUnits) + "</code>"
		} else {
			head = "🔐 <b>Claude wants to use</b> <code>" + escHead(oneLine(Visible(tool)), maxPathUnits) + "</code>"
		}
	}
	note := ""
	if d := oneLine(description); d != "" && !in.hasValue(d) {
		note = description
	}
	return toolView{head: head, note: note, path: filePath,
		preview: func(budget int) (string, bool) { return argLines(in, budget) }}
}

func (fs fields) without(keys ...string) fields {
	var out fields
	for _, f := range fs {
		drop := false
		for _, k := range keys {
			drop = drop || f.Key == k
		}
		if !drop {
			out = append(out, f)
		}
	}
	return out
}

// hasValue reports whether some string argument already says s, so the
// request's description would only repeat it.
func (fs fields) hasValue(s string) bool {
	for _, f := range fs {
		if v := oneLine(display(f.Raw)); v == s || strings.HasSuffix(v, "/"+s) {
			return true
		}
	}
	return false
}

// argLines renders up to maxArgs "key: value" lines within budget;
// complete says every key and value is shown uncut.
func argLines(fs fields, budget int) (string, bool) {
	var b strings.Builder
	complete := true
	for i, f := range fs {
		if i == maxArgs {
			more := "<i>… " + plural(len(fs)-i, "more argument", "more arguments") + "</i>"
			if units(b.String())+1+units(more) <= budget {
				b.WriteString("\n" + more)
			}
			return b.String(), false
		}
		key, val := oneLine(Visible(f.Key)), oneLine(display(f.Raw))
		line := "<b>" + escHead(clip(key, 40), 100) + "</b>: " + escHead(clip(val, maxArgValueRunes), maxArgUnits)
		sep := ""
		if b.Len() > 0 {
			sep = "\n"
		}
		if units(b.String())+units(sep+line) > budget {
			return b.String(), false
		}
		b.WriteString(sep + line)
		complete = complete && !cuts(key, 40, 100) && !cuts(val, maxArgValueRunes, maxArgUnits)
	}
	return b.String(), complete
}

// cuts reports whether escHead(clip(s, runes), budget) loses part of s.
func cuts(s string, runes, budget int) bool {
	s = clean(s)
	return utf8.RuneCountInString(s) > runes || escTotal(s) > budget
}

// splitLines splits text into lines, ignoring one trailing newline.
func splitLines(s string) []string {
	s = strings.TrimSuffix(clean(s), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// diffLines shows what an edit changes, every line of old and new: the
// lines both share at the start and end as context ("  line"), since they
// decide where the edit lands, the rest as "- old" and "+ new" lines. When
// more than limit lines would be needed, the context is shortened first
// (to the line next to the change on each side), then the changed lines
// are split fairly between the two sides. all says nothing was left out
// and the lines tell old from new: a change only in the line break at the
// end is marked, but needs the file to be read exactly.
func diffLines(old, new string, limit int) (out []string, all bool) {
	if old == new {
		return []string{"(no change)"}, true
	}
	o, n := splitLines(old), splitLines(new)
	pre := 0
	for pre < len(o) && pre < len(n) && o[pre] == n[pre] {
		pre++
	}
	suf := 0
	for suf < len(o)-pre && suf < len(n)-pre && o[len(o)-1-suf] == n[len(n)-1-suf] {
		suf++
	}
	before, after := o[:pre], o[len(o)-suf:]
	o, n = o[pre:len(o)-suf], n[pre:len(n)-suf]
	all = true
	var eol string // a change in the line break at the end, which no line shows
	switch oe, ne := strings.HasSuffix(clean(old), "\n"), strings.HasSuffix(clean(new), "\n"); {
	case oe && !ne:
		eol, all = "- (the line break at the end)", false
	case ne && !oe:
		eol, all = "+ (a line break at the end)", false
	case len(o) == 0 && len(n) == 0: // differs only in what clean drops
		return []string{"(a change this preview cannot show: see the whole input)"}, false
	}
	if len(before)+len(o)+len(n)+len(after) > limit {
		all = false
		if len(before) > 1 {
			out = append(out, "  … "+plural(len(before)-1, "more line", "more lines"))
			before = before[len(before)-1:]
		}
		if len(after) > 1 {
			defer func(n int) { out = append(out, "  … "+plural(n, "more line", "more lines")) }(len(after) - 1)
			after = after[:1]
		}
		limit = max(limit-len(before)-len(after), 2)
	}
	for _, l := range before {
		out = append(out, "  "+l)
	}
	oShow, nShow := len(o), len(n)
	if oShow+nShow > limit {
		// Each side gets half, and what one side does not need goes to the other.
		oShow = min(len(o), max(limit/2, limit-len(n)))
		nShow = min(len(n), limit-oShow)
	}
	side := func(lines []string, show int, mark string) {
		for _, l := range lines[:show] {
			out = append(out, mark+" "+l)
		}
		if rest := len(lines) - show; rest > 0 {
			out = append(out, mark+" … "+plural(rest, "more line", "more lines"))
		}
	}
	side(o, oShow, "-")
	side(n, nShow, "+")
	for _, l := range after {
		out = append(out, "  "+l)
	}
	if eol != "" {
		out = append(out, eol)
	}
	return out, all && oShow == len(o) && nShow == len(n)
}

// preText puts text into a <pre> block (with a language class if lang is
// set), cut at the end so the whole block fits budget units; complete says
// it was not cut.
func preText(text, lang string, budget int) (string, bool) {
	open, close := preTags(lang)
	room := budget - units(open+close)
	text = strings.Trim(clean(text), "\n")
	if strings.TrimSpace(text) == "" {
		return "", true
	}
	if room < 8 {
		return "", false
	}
	return open + escHead(text, room) + close, escTotal(text) <= room
}

// preLines puts lines into a <pre> block, each cut to maxLineRunes, as many
// as fit budget; a cut is marked with a last "…" line. complete says no
// line was cut or left out.
func preLines(lines []string, lang string, budget int) (string, bool) {
	open, close := preTags(lang)
	room := budget - units(open+close) - units("\n"+ellipsis)
	if len(lines) == 0 {
		return "", true
	}
	if room < 8 {
		return "", false
	}
	var b strings.Builder
	used, complete := 0, true
	for i, l := range lines {
		sep := ""
		if i > 0 {
			sep = "\n"
		}
		avail := room - used - len(sep)
		c := clip(l, maxLineRunes)
		e := escHead(c, avail)
		if avail < 0 || (e == "" && c != "") { // not even "…" of this line fits
			if i == 0 {
				return "", false
			}
			b.WriteString("\n" + ellipsis)
			complete = false
			break
		}
		b.WriteString(sep + e)
		used += len(sep) + units(e)
		complete = complete && !cuts(l, maxLineRunes, avail)
	}
	return open + b.String() + close, complete
}

func preTags(lang string) (open, close string) {
	if lang == "" {
		return "<pre>", "</pre>"
	}
	return `<pre><code class="language-` + lang + `">`, "</code></pre>"
}
