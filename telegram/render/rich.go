package render

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Rich messages (Bot API 10.1, sendRichMessage) show what Telegram HTML
// cannot: real tables, headings, lists, code with its language, and
// collapsible details. Rich renders Claude's Markdown as the HTML of such a
// message; IsRich says when that reads better than Markdown's Telegram
// HTML. The tags used are the block tags of Telegram's rich HTML that
// follow plain HTML (p, h1–h6, ul/ol/li, table/tr/th/td, pre/code,
// blockquote, hr, details/summary) and the inline tags Telegram HTML
// already has.

// LongCode is how many lines make a code block long: it counts as rich,
// and shows folded (a details block) with its first line as the summary.
const LongCode = 30

// RichLimits are the documented limits of one rich message (Bot API 10.1,
// "Rich Message Limits"): characters of text, blocks (nested blocks, list
// items and table rows included), nesting depth, table columns.
const (
	RichMaxChars   = 32768
	RichMaxBlocks  = 500
	RichMaxDepth   = 16
	RichMaxColumns = 20
)

// IsRich reports whether src has a table, a task list, a heading, or a
// code block of more than LongCode lines: what a plain message flattens.
func IsRich(src string) bool {
	source := []byte(strings.ToValidUTF8(src, "\uFFFD"))
	doc := md.Parser().Parse(text.NewReader(source))
	rich := false
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *east.Table, *east.TaskCheckBox:
			rich = true
		case *ast.Heading:
			rich = rich || n.HasChildren()
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			rich = rich || n.Lines().Len() > LongCode
		}
		if rich {
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return rich
}

// Rich renders Markdown as the HTML of a rich message. It does not check
// the limits: see FitsRich.
func Rich(src string) string {
	source := []byte(strings.ToValidUTF8(src, "\uFFFD"))
	doc := md.Parser().Parse(text.NewReader(source))
	w := &richWriter{src: source}
	w.blocks(doc)
	return strings.TrimSpace(w.out.String())
}

// FitsRich reports whether a rich message's HTML (as Rich makes it) is
// within the documented limits, measured the way RichStats counts.
func FitsRich(html string) bool {
	s := RichStats(html)
	return s.Chars <= RichMaxChars && s.Blocks <= RichMaxBlocks && s.Depth <= RichMaxDepth && s.Columns <= RichMaxColumns
}

// RichBlockTags are the tags that count as blocks in a rich message.
var RichBlockTags = map[string]bool{
	"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"pre": true, "blockquote": true, "hr": true, "ul": true, "ol": true, "li": true,
	"table": true, "tr": true, "details": true,
}

// Stats is what RichStats measured.
type Stats struct {
	Chars, Blocks, Depth, Columns int
}

// RichStats measures rich HTML: visible characters, blocks, the deepest
// nesting of tags, the most cells in a table row.
func RichStats(html string) Stats {
	var s Stats
	s.Chars = len([]rune(VisibleText(html)))
	depth, cells := 0, 0
	for _, t := range scanTags(html, len(html)+1) {
		switch {
		case t.closing:
			depth--
			if t.name == "tr" {
				s.Columns = max(s.Columns, cells)
			}
		case t.name == "hr" || t.name == "br":
			// void
			if t.name == "hr" {
				s.Blocks++
			}
		default:
			depth++
			s.Depth = max(s.Depth, depth)
			if RichBlockTags[t.name] {
				s.Blocks++
			}
			switch t.name {
			case "tr":
				cells = 0
			case "td", "th":
				cells++
			}
		}
	}
	return s
}

// richWriter walks the Markdown tree; inline content goes through the
// Telegram HTML renderer, whose inline tags rich messages share.
type richWriter struct {
	src []byte
	out strings.Builder
}

func (w *richWriter) blocks(parent ast.Node) {
	for c := parent.FirstChild(); c != nil; c = c.NextSibling() {
		w.block(c)
	}
}

func (w *richWriter) inlines(n ast.Node) string {
	r := &renderer{src: w.src, mode: htmlMode}
	r.inlines(n)
	return strings.TrimSpace(string(r.out))
}

func (w *richWriter) wrapped(tag string, n ast.Node) {
	if s := w.inlines(n); s != "" {
		w.out.WriteString("<" + tag + ">" + s + "</" + tag + ">")
	}
}

func (w *richWriter) block(n ast.Node) {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		w.wrapped("p", n)
	case *ast.Heading:
		w.wrapped("h"+strconv.Itoa(min(max(n.Level, 1), 6)), n)
	case *ast.ThematicBreak:
		w.out.WriteString("<hr>")
	case *ast.FencedCodeBlock:
		w.code(n, n.Language(w.src))
	case *ast.CodeBlock:
		w.code(n, nil)
	case *ast.Blockquote:
		w.out.WriteString("<blockquote>")
		w.blocks(n)
		w.out.WriteString("</blockquote>")
	case *ast.List:
		w.list(n)
	case *ast.HTMLBlock:
		// Shown as text, never passed through.
		r := &renderer{src: w.src, mode: htmlMode}
		var raw []byte
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			raw = append(raw, seg.Value(w.src)...)
		}
		r.raw(bytes.TrimSpace(raw))
		if len(r.out) > 0 {
			w.out.WriteString("<p>" + string(r.out) + "</p>")
		}
	case *east.Table:
		w.table(n)
	default:
		w.blocks(n)
	}
}

func (w *richWriter) code(n ast.Node, lang []byte) {
	var code []byte
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		code = append(code, seg.Value(w.src)...)
	}
	code = bytes.TrimRight(code, "\n")
	if len(bytes.TrimSpace(code)) == 0 {
		return
	}
	l := cleanLanguage(lang)
	pre := "<pre>" + Escape(string(code)) + "</pre>"
	if l != "" {
		pre = `<pre><code class="language-` + l + `">` + Escape(string(code)) + "</code></pre>"
	}
	lines := bytes.Count(code, []byte("\n")) + 1
	if lines <= LongCode {
		w.out.WriteString(pre)
		return
	}
	w.out.WriteString(Details(CodeSummary(l, lines), pre))
}

// CodeSummary names a folded code block: "go · 120 lines".
func CodeSummary(lang string, lines int) string {
	s := strconv.Itoa(lines) + " lines"
	if lang != "" {
		s = lang + " · " + s
	}
	return s
}

// Details folds body (rich HTML blocks) under summary (plain text).
func Details(summary, body string) string {
	return "<details><summary>" + Escape(summary) + "</summary>" + body + "</details>"
}

func (w *richWriter) list(l *ast.List) {
	tag := "ul"
	if l.IsOrdered() {
		tag = "ol"
	}
	open := "<" + tag + ">"
	if l.IsOrdered() && l.Start != 1 {
		open = `<ol start="` + strconv.Itoa(l.Start) + `">`
	}
	w.out.WriteString(open)
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		w.out.WriteString("<li>")
		// A tight item is one line of text: no paragraph around it.
		if c := item.FirstChild(); c != nil && c.NextSibling() == nil && c.Kind() == ast.KindTextBlock {
			w.out.WriteString(w.inlines(c))
		} else {
			w.blocks(item)
		}
		w.out.WriteString("</li>")
	}
	w.out.WriteString("</" + tag + ">")
}

func (w *richWriter) table(t *east.Table) {
	w.out.WriteString("<table>")
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		cell := "td"
		if _, head := row.(*east.TableHeader); head {
			cell = "th"
		}
		w.out.WriteString("<tr>")
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			open := "<" + cell + ">"
			if tc, ok := c.(*east.TableCell); ok && (tc.Alignment == east.AlignCenter || tc.Alignment == east.AlignRight) {
				open = "<" + cell + ` align="` + tc.Alignment.String() + `">`
			}
			w.out.WriteString(open + w.inlines(c) + "</" + cell + ">")
		}
		w.out.WriteString("</tr>")
	}
	w.out.WriteString("</table>")
}
