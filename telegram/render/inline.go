package render

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/util"
)

func (r *renderer) inlines(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(c)
	}
}

func (r *renderer) inline(n ast.Node) {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(r.src)
		if n.IsRaw() {
			r.text(v)
		} else {
			r.text(unescape(v))
		}
		if n.HardLineBreak() || n.SoftLineBreak() {
			r.newline()
		}
	case *ast.String:
		if n.IsCode() || n.IsRaw() {
			r.text(n.Value)
		} else {
			r.text(unescape(n.Value))
		}
	case *ast.CodeSpan:
		r.codeSpan(n)
	case *ast.Emphasis:
		if n.Level >= 2 {
			r.wrap("<b>", "</b>", n)
		} else {
			r.wrap("<i>", "</i>", n)
		}
	case *east.Strikethrough:
		r.wrap("<s>", "</s>", n)
	case *ast.Link:
		r.link(n.Destination, n)
	case *ast.Image:
		r.image(n)
	case *ast.AutoLink:
		r.autoLink(n)
	case *ast.RawHTML:
		// Shown, never passed through (see htmlBlock).
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			r.text(seg.Value(r.src))
		}
	case *east.TaskCheckBox:
		if n.IsChecked {
			r.raw([]byte("☑ "))
		} else {
			r.raw([]byte("☐ "))
		}
	default:
		r.inlines(n)
	}
}

func (r *renderer) wrap(open, close string, n ast.Node) {
	r.tag(open)
	r.inlines(n)
	r.tag(close)
}

func (r *renderer) codeSpan(n *ast.CodeSpan) {
	var code []byte
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			code = append(code, c.Segment.Value(r.src)...)
		case *ast.String:
			code = append(code, c.Value...)
		}
	}
	// CommonMark turns line endings inside code spans into spaces.
	code = bytes.ReplaceAll(code, []byte("\n"), []byte(" "))
	if len(code) == 0 {
		return
	}
	// Telegram can't put code inside a link; the link wins.
	if r.linkDepth > 0 {
		r.raw(code)
		return
	}
	r.tag("<code>")
	r.raw(code)
	r.tag("</code>")
}

func (r *renderer) link(dest []byte, n ast.Node) {
	url, ok := linkURL(util.URLEscape(dest, true))
	if !ok || r.linkDepth > 0 {
		r.inlines(n)
		return
	}
	if !r.html() {
		start := len(r.out)
		r.linkDepth++
		r.inlines(n)
		r.linkDepth--
		switch shown := string(r.out[start:]); shown {
		case "":
			r.raw([]byte(url))
		case url:
		default:
			r.raw([]byte(" (" + url + ")"))
		}
		return
	}
	r.tag(`<a href="` + Escape(url) + `">`)
	r.linkDepth++
	start := len(r.out)
	r.inlines(n)
	if len(r.out) == start {
		r.raw([]byte(url)) // an empty link would be invisible
	}
	r.linkDepth--
	r.tag("</a>")
}

// image shows the alt text, linked to the image when the URL is allowed.
func (r *renderer) image(n *ast.Image) {
	alt := r.plainOf(n)
	if len(alt) == 0 {
		alt = []byte("image")
	}
	url, ok := linkURL(util.URLEscape(n.Destination, true))
	switch {
	case !ok || r.linkDepth > 0:
		r.text(alt)
	case !r.html():
		r.text(alt)
		r.raw([]byte(" (" + url + ")"))
	default:
		r.tag(`<a href="` + Escape(url) + `">`)
		r.text(alt)
		r.tag("</a>")
	}
}

// plainOf renders n's inline children as plain text.
func (r *renderer) plainOf(n ast.Node) []byte {
	sub := &renderer{src: r.src, mode: plainMode}
	sub.inlines(n)
	return sub.out
}

func (r *renderer) autoLink(n *ast.AutoLink) {
	label := n.Label(r.src)
	raw := n.URL(r.src)
	if n.AutoLinkType == ast.AutoLinkEmail && !bytes.HasPrefix(bytes.ToLower(raw), []byte("mailto:")) {
		raw = append([]byte("mailto:"), raw...)
	}
	url, ok := linkURL(util.URLEscape(raw, false))
	if !ok || r.linkDepth > 0 || !r.html() {
		r.text(label)
		return
	}
	r.tag(`<a href="` + Escape(url) + `">`)
	r.text(label)
	r.tag("</a>")
}

// linkURL reports whether u may become a Telegram link: only schemes that
// are useful on a phone and harmless (no javascript:, file:, relative paths).
func linkURL(u []byte) (string, bool) {
	s := string(u)
	colon := bytes.IndexByte(u, ':')
	if colon <= 0 || len(s) > 2048 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f {
			return "", false
		}
	}
	scheme := string(bytes.ToLower(u[:colon]))
	rest := s[colon+1:]
	switch scheme {
	case "http", "https", "tg":
		// A host (or tg action) must follow, or Telegram rejects the link.
		if len(rest) < 3 || rest[:2] != "//" {
			return "", false
		}
	case "mailto":
		if len(rest) == 0 {
			return "", false
		}
	default:
		return "", false
	}
	return scheme + ":" + rest, true
}

// unescape applies CommonMark backslash escapes and entity references to
// inline text (goldmark leaves them in the source segments).
func unescape(s []byte) []byte {
	if bytes.IndexByte(s, '\\') < 0 && bytes.IndexByte(s, '&') < 0 && bytes.IndexByte(s, 0) < 0 {
		return s
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && util.IsPunct(s[i+1]):
			out = append(out, s[i+1])
			i++
		case c == 0:
			out = append(out, "\uFFFD"...)
		case c == '&':
			if v, n := entity(s[i:]); n > 0 {
				out = append(out, v...)
				i += n - 1
			} else {
				out = append(out, c)
			}
		default:
			out = append(out, c)
		}
	}
	return out
}

// entity decodes an HTML entity reference at the start of s, returning its
// characters and length, or n == 0 if s does not start with one.
func entity(s []byte) (v []byte, n int) {
	end := bytes.IndexByte(s, ';')
	if end < 2 || end > 40 {
		return nil, 0
	}
	body := s[1:end]
	if body[0] != '#' {
		for _, c := range body {
			if !util.IsAlphaNumeric(c) {
				return nil, 0
			}
		}
		e, ok := util.LookUpHTML5EntityByName(string(body))
		if !ok {
			return nil, 0
		}
		return e.Characters, end + 1
	}
	digits, base := body[1:], 10
	if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
		digits, base = digits[1:], 16
	}
	if len(digits) == 0 || len(digits) > 7 {
		return nil, 0
	}
	cp, err := strconv.ParseUint(string(digits), base, 32)
	if err != nil {
		return nil, 0
	}
	r := rune(cp)
	if cp == 0 || cp > utf8.MaxRune || (r >= 0xD800 && r <= 0xDFFF) {
		r = utf8.RuneError
	}
	return utf8.AppendRune(nil, r), end + 1
}
