package render

import (
	"bytes"
	"strconv"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

type mode int

const (
	htmlMode mode = iota
	plainMode
)

const (
	// listIndent indents nested lists and continuation lines of list items.
	// Telegram keeps leading spaces, and in its proportional font four spaces
	// are about as wide as a bullet and its gap.
	listIndent = "    "
	quoteMark  = "> " // plain mode only; HTML uses <blockquote>
	ruleLine   = "──────────"
)

// renderer walks a goldmark AST and appends Telegram HTML (or plain text) to
// out. Block layout is line based: Telegram has no lists or headings, so
// structure becomes newlines, bullets and indentation.
type renderer struct {
	src  []byte
	mode mode
	out  []byte

	prefix     []byte // written at the start of every line of the current block
	lastPrefix []byte // prefix of the previous block
	started    bool   // a block has been written (so the next needs a separator)
	skipSep    bool   // the next block continues a list item's marker line
	tight      bool   // inside a tight list: blocks are separated by one newline

	quoteDepth int  // Markdown blockquote nesting (flattened: Telegram can't nest)
	quoteOpen  bool // a <blockquote> tag is open in out
	linkDepth  int  // inside <a>: no nested links, no <code>
}

func (r *renderer) html() bool { return r.mode == htmlMode }

// tag appends markup; plain mode drops it.
func (r *renderer) tag(s string) {
	if r.html() {
		r.out = append(r.out, s...)
	}
}

// text appends inline text; newlines continue the current line prefix.
func (r *renderer) text(s []byte) {
	for {
		i := bytes.IndexByte(s, '\n')
		if i < 0 {
			r.raw(s)
			return
		}
		r.raw(s[:i])
		r.newline()
		s = s[i+1:]
	}
}

// raw appends text without prefix handling, escaped in HTML mode.
func (r *renderer) raw(s []byte) {
	if r.html() {
		r.out = appendEscaped(r.out, s)
	} else {
		r.out = append(r.out, s...)
	}
}

func (r *renderer) newline() {
	r.out = append(r.out, '\n')
	r.out = append(r.out, r.prefix...)
}

// beginBlock separates a new block from the previous one and manages the
// lazily opened <blockquote>: Telegram cannot put a <pre> inside a quote, so
// a code block inside a Markdown quote closes the quote and the next text
// block reopens it.
func (r *renderer) beginBlock(isPre bool) {
	preHTML := isPre && r.html()
	wantQuote := r.html() && r.quoteDepth > 0 && !isPre
	oneLine := false
	if r.skipSep {
		r.skipSep = false
		if !preHTML && wantQuote == r.quoteOpen {
			return
		}
		// A code block can't share the list marker's line, and neither can
		// a quote boundary.
		oneLine = true
	}
	if r.quoteOpen && !wantQuote {
		r.tag("</blockquote>")
		r.quoteOpen = false
	}
	if r.started {
		r.out = append(r.out, '\n')
		if !r.tight && !oneLine {
			// The blank line belongs to both neighbours: give it only the
			// prefix they share (no "> " before a quote starts).
			common := commonPrefix(r.lastPrefix, r.prefix)
			r.out = append(r.out, bytes.TrimRight(common, " ")...)
			r.out = append(r.out, '\n')
		}
	}
	r.started = true
	r.lastPrefix = append(r.lastPrefix[:0], r.prefix...)
	if wantQuote && !r.quoteOpen {
		r.tag("<blockquote>")
		r.quoteOpen = true
	}
	if !preHTML {
		r.out = append(r.out, r.prefix...)
	}
}

func commonPrefix(a, b []byte) []byte {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return b[:n]
}

func (r *renderer) finish() {
	if r.quoteOpen {
		r.tag("</blockquote>")
		r.quoteOpen = false
	}
}

func (r *renderer) blocks(parent ast.Node) {
	for c := parent.FirstChild(); c != nil; c = c.NextSibling() {
		r.block(c)
	}
}

func (r *renderer) block(n ast.Node) {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		r.beginBlock(false)
		r.inlines(n)
	case *ast.Heading:
		if !n.HasChildren() {
			return // "#" alone: an empty <b></b> line helps nobody
		}
		r.beginBlock(false)
		r.tag("<b>")
		r.inlines(n)
		r.tag("</b>")
	case *ast.ThematicBreak:
		r.beginBlock(false)
		r.raw([]byte(ruleLine))
	case *ast.FencedCodeBlock:
		r.codeBlock(n, n.Language(r.src))
	case *ast.CodeBlock:
		r.codeBlock(n, nil)
	case *ast.Blockquote:
		r.quote(n)
	case *ast.List:
		r.list(n)
	case *ast.HTMLBlock:
		r.htmlBlock(n)
	case *east.Table:
		r.table(n)
	default:
		r.blocks(n)
	}
}

func (r *renderer) lines(n ast.Node) []byte {
	var b []byte
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b = append(b, seg.Value(r.src)...)
	}
	return b
}

func (r *renderer) codeBlock(n ast.Node, lang []byte) {
	code := bytes.TrimRight(r.lines(n), "\n")
	if len(bytes.TrimSpace(code)) == 0 {
		return // an empty <pre> would be an empty entity; nothing to show
	}
	r.beginBlock(true)
	if !r.html() {
		r.text(code)
		return
	}
	if l := cleanLanguage(lang); l != "" {
		r.tag(`<pre><code class="language-` + l + `">`)
		r.raw(code)
		r.tag("</code></pre>")
		return
	}
	r.tag("<pre>")
	r.raw(code)
	r.tag("</pre>")
}

// cleanLanguage keeps the characters language names use, so the class
// attribute needs no escaping and cannot smuggle markup.
func cleanLanguage(lang []byte) string {
	out := make([]byte, 0, len(lang))
	for _, c := range lang {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '_', c == '-', c == '+', c == '#', c == '.':
			out = append(out, c)
		}
		if len(out) == 32 {
			break
		}
	}
	return string(out)
}

// quote renders a blockquote. Telegram can't nest quotes, so in HTML inner
// quotes live inside the outer <blockquote> with a "> " marker per extra
// level; list indentation from outside is dropped, since the quote is a box
// of its own. Plain text marks every level with "> ".
func (r *renderer) quote(n *ast.Blockquote) {
	saveTight, savePrefix := r.tight, r.prefix
	r.quoteDepth++
	if r.html() {
		if r.quoteDepth == 1 {
			r.prefix = nil
		} else {
			r.prefix = append(r.prefix[:len(r.prefix):len(r.prefix)], quoteMark...)
		}
	} else {
		r.prefix = append(r.prefix[:len(r.prefix):len(r.prefix)], quoteMark...)
		if r.skipSep {
			r.raw([]byte(quoteMark)) // the list marker's line is now a quote line
		}
	}
	// The first block is separated by the surrounding context (one newline
	// in a tight list), the rest are paragraphs of the quote.
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.block(c)
		r.tight = false
	}
	r.quoteDepth--
	r.prefix = savePrefix
	r.tight = saveTight
}

func (r *renderer) list(l *ast.List) {
	saveTight := r.tight
	num := l.Start
	for item := l.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "•"
		if l.IsOrdered() {
			marker = strconv.Itoa(num) + "."
			num++
		}
		// The surrounding context separates the list from what precedes it;
		// the list's own tightness separates its items.
		r.beginBlock(false)
		r.tight = l.IsTight
		r.raw([]byte(marker + " "))
		savePrefix := len(r.prefix)
		r.prefix = append(r.prefix, listIndent...)
		r.skipSep = true
		r.blocks(item)
		r.skipSep = false
		r.prefix = r.prefix[:savePrefix]
	}
	r.tight = saveTight
}

// htmlBlock shows raw HTML as text: Telegram would reject most tags, and
// passing markup through would let the answer inject formatting.
func (r *renderer) htmlBlock(n *ast.HTMLBlock) {
	b := r.lines(n)
	if n.HasClosure() {
		b = append(b, n.ClosureLine.Value(r.src)...)
	}
	b = bytes.TrimRight(b, "\n")
	if len(b) == 0 {
		return
	}
	r.beginBlock(false)
	r.text(b)
}
