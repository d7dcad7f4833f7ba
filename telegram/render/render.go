// Package render turns Claude's Markdown into the HTML subset Telegram accepts
// (parse_mode "HTML") and cuts the result into message-sized parts.
//
// The pipeline is Markdown → HTML (goldmark AST walk, never regular expressions)
// → Split (tag-aware, UTF-16 counted). Plain and SplitPlain serve the fallback
// path for when Telegram still refuses the HTML.
package render

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// MaxMessage is Telegram's limit for one text message, in UTF-16 code units.
const MaxMessage = 4096

// md is shared: goldmark parsers keep no per-call state outside the parse
// context, so one instance serves concurrent callers.
var md = goldmark.New(goldmark.WithExtensions(
	extension.Strikethrough,
	extension.Table,
	extension.TaskList,
	// Linkify keeps bare URLs away from emphasis parsing: `*` or `_` inside
	// a URL must not turn half of it italic.
	extension.Linkify,
))

// Markdown renders Claude's Markdown as Telegram HTML. The result satisfies
// Validate and may be longer than one message; cut it with Split.
func Markdown(src string) string {
	return render(src, htmlMode)
}

// Plain renders Markdown as plain text with the same layout as Markdown
// (bullets, indentation, code) but no tags and no escaping; link targets are
// kept in parentheses after the link text.
func Plain(src string) string {
	return render(src, plainMode)
}

// Parts renders Markdown and splits it into parts of at most limit UTF-16
// units each (see Split). Empty or whitespace-only input gives no parts.
func Parts(src string, limit int) []string {
	return Split(Markdown(src), limit)
}

// PlainParts renders Markdown as plain text and splits it (see SplitPlain).
func PlainParts(src string, limit int) []string {
	return SplitPlain(Plain(src), limit)
}

func render(src string, m mode) string {
	// Telegram wants valid UTF-8; fix it before offsets are computed.
	src = strings.ToValidUTF8(src, "\uFFFD")
	source := []byte(src)
	doc := md.Parser().Parse(text.NewReader(source))
	r := &renderer{src: source, mode: m, out: make([]byte, 0, len(source)+len(source)/8+16)}
	r.blocks(doc)
	r.finish()
	return strings.TrimRight(string(r.out), " \n")
}

// Escape makes s safe as text or as a double-quoted attribute value in
// Telegram HTML: it escapes &, <, > and ".
func Escape(s string) string {
	if !strings.ContainsAny(s, `&<>"`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// appendEscaped escapes text content: quotes need no escaping outside
// attributes, and every byte saved counts against the message limit.
func appendEscaped(dst []byte, s []byte) []byte {
	for _, c := range s {
		switch c {
		case '&':
			dst = append(dst, "&amp;"...)
		case '<':
			dst = append(dst, "&lt;"...)
		case '>':
			dst = append(dst, "&gt;"...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
