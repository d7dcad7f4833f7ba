package tgtest

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Entity is a Bot API MessageEntity; offsets and lengths are in UTF-16 code units, as Telegram counts.
type Entity struct {
	Type          string `json:"type"`
	Offset        int    `json:"offset"`
	Length        int    `json:"length"`
	URL           string `json:"url,omitempty"`
	Language      string `json:"language,omitempty"`
	CustomEmojiID string `json:"custom_emoji_id,omitempty"`
}

// HTMLError is a refusal of Telegram's HTML parser. Message is the part after "can't parse entities: ".
type HTMLError struct{ Message string }

func (e *HTMLError) Error() string { return "can't parse entities: " + e.Message }

func htmlErrorf(format string, args ...any) *HTMLError {
	return &HTMLError{Message: fmt.Sprintf(format, args...)}
}

// ParseHTML parses text in Telegram's HTML subset and returns the visible text and its entities.
// It follows the Bot API parser (TDLib's parse_html) tag by tag and error by error, and is stricter in one
// documented way: every '&' must start &lt; &gt; &amp; &quot; or a numeric reference ending in ';'. Telegram
// itself shows a stray '&' literally, which hides escaping bugs in a renderer; ParseHTMLLenient accepts that.
func ParseHTML(s string) (string, []Entity, error) { return parseHTML(s, true) }

// ParseHTMLLenient is ParseHTML with Telegram's own leniency about '&': unknown or unterminated references
// stay literal text.
func ParseHTMLLenient(s string) (string, []Entity, error) { return parseHTML(s, false) }

var htmlTags = map[string]bool{
	"a": true, "b": true, "strong": true, "i": true, "em": true, "u": true, "ins": true,
	"s": true, "strike": true, "del": true, "span": true, "tg-spoiler": true, "tg-emoji": true,
	"tg-time": true, "code": true, "pre": true, "blockquote": true,
}

// openTag is a start tag waiting for its end tag.
type openTag struct {
	name   string
	arg    string // href, code language, span class suffix, emoji id, "1" for expandable blockquote
	offset int    // UTF-16 offset of the tag's content in the visible text
	textAt int    // byte offset of the tag's content in the visible text
}

type htmlParser struct {
	src      string
	strict   bool
	out      strings.Builder
	u16      int
	stack    []openTag
	entities []Entity
}

// at reads like a NUL-terminated C string, which keeps the bounds checks out of the scanning loops.
func (p *htmlParser) at(i int) byte {
	if i < len(p.src) {
		return p.src[i]
	}
	return 0
}

func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func parseHTML(s string, strict bool) (string, []Entity, error) {
	p := &htmlParser{src: s, strict: strict}
	if err := p.run(); err != nil {
		return "", nil, err
	}
	ents := p.entities
	stripCodeLanguages(ents)
	sort.SliceStable(ents, func(i, j int) bool {
		if ents[i].Offset != ents[j].Offset {
			return ents[i].Offset < ents[j].Offset
		}
		return ents[i].Length > ents[j].Length
	})
	return p.out.String(), ents, nil
}

func (p *htmlParser) run() error {
	for i := 0; i < len(p.src); {
		c := p.src[i]
		switch c {
		case '&':
			r, next, err := p.reference(i)
			if err != nil {
				return err
			}
			if next > i {
				p.emit(r)
				i = next
				continue
			}
		case '<':
			next, err := p.tag(i)
			if err != nil {
				return err
			}
			i = next
			continue
		}
		r, size := utf8.DecodeRuneInString(p.src[i:])
		p.emit(r)
		i += size
	}
	if len(p.stack) > 0 {
		return htmlErrorf("Can't find end tag corresponding to start tag %q", p.stack[len(p.stack)-1].name)
	}
	return nil
}

func (p *htmlParser) emit(r rune) {
	p.out.WriteRune(r)
	p.u16 += utf16Len(r)
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// UTF16Len counts s in UTF-16 code units: the unit of Telegram's length limits and entity offsets.
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16Len(r)
	}
	return n
}

// reference decodes the character reference at i. next == i means "not a reference, keep '&' literally",
// which only the lenient mode allows.
func (p *htmlParser) reference(i int) (rune, int, error) {
	r, end := decodeReference(p.src, i)
	if r >= 0xD800 && r <= 0xDFFF {
		return 0, 0, htmlErrorf("Text contains invalid Unicode characters after decoding HTML entities, check for unmatched surrogate code units")
	}
	if p.strict && (r == 0 || p.at(end) != ';') {
		return 0, 0, htmlErrorf("Character '&' at byte offset %d must be escaped as &amp; (tgtest strict HTML)", i)
	}
	if r == 0 {
		return 0, i, nil
	}
	if p.at(end) == ';' {
		end++
	}
	return r, end, nil
}

// decodeReference reads &lt; &gt; &amp; &quot; &#N; &#xN; at i (the ';' is optional, as in Telegram) and returns
// the character and the index just past the name or number; 0 when it is no reference Telegram knows.
func decodeReference(s string, i int) (rune, int) {
	at := func(k int) byte {
		if k < len(s) {
			return s[k]
		}
		return 0
	}
	end := i + 1
	if at(end) != '#' {
		for isAlnum(at(end)) && !(at(end) >= '0' && at(end) <= '9') {
			end++
		}
		switch s[i+1 : end] {
		case "lt":
			return '<', end
		case "gt":
			return '>', end
		case "amp":
			return '&', end
		case "quot":
			return '"', end
		}
		return 0, end
	}
	end++
	base := 10
	if at(end) == 'x' {
		base = 16
		end++
	}
	start := end
	for isAlnum(at(end)) && (base == 16 || at(end) >= '0' && at(end) <= '9') {
		end++
	}
	v, err := strconv.ParseUint(s[start:end], base, 32)
	if err != nil || v == 0 || v >= 0x10FFFF {
		return 0, end
	}
	return rune(v), end
}

// tag handles the start or end tag whose '<' is at begin and returns the index after its '>'.
func (p *htmlParser) tag(begin int) (int, error) {
	if p.at(begin+1) == '/' {
		return p.endTag(begin)
	}
	i := begin + 1
	for p.at(i) != 0 && !isHTMLSpace(p.at(i)) && p.at(i) != '>' {
		i++
	}
	if p.at(i) == 0 {
		return 0, htmlErrorf("Unclosed start tag at byte offset %d", begin)
	}
	name := strings.ToLower(p.src[begin+1 : i])
	if !htmlTags[name] {
		return 0, htmlErrorf("Unsupported start tag %q at byte offset %d", name, begin)
	}
	arg := ""
	for p.at(i) != '>' {
		for p.at(i) != 0 && isHTMLSpace(p.at(i)) {
			i++
		}
		if p.at(i) == '>' {
			break
		}
		attrBegin := i
		for c := p.at(i); c != 0 && !isHTMLSpace(c) && !strings.ContainsRune("=>/\"'", rune(c)); c = p.at(i) {
			i++
		}
		attr := p.src[attrBegin:i]
		if attr == "" {
			return 0, htmlErrorf("Empty attribute name in the tag %q at byte offset %d", name, begin)
		}
		for p.at(i) != 0 && isHTMLSpace(p.at(i)) {
			i++
		}
		if p.at(i) != '=' {
			// A bare attribute: only <blockquote expandable> means anything.
			if p.at(i) == 0 {
				return 0, htmlErrorf("Unclosed start tag %q at byte offset %d", name, begin)
			}
			if name == "blockquote" && attr == "expandable" {
				arg = "1"
			}
			continue
		}
		i++
		for p.at(i) != 0 && isHTMLSpace(p.at(i)) {
			i++
		}
		if p.at(i) == 0 {
			return 0, htmlErrorf("Unclosed start tag %q at byte offset %d", name, begin)
		}
		value, next, err := p.attrValue(i)
		if err != nil {
			return 0, err
		}
		i = next
		if p.at(i) == 0 {
			return 0, htmlErrorf("Unclosed start tag at byte offset %d", begin)
		}
		switch {
		case name == "a" && attr == "href", name == "tg-emoji" && attr == "emoji-id":
			arg = value
		case name == "code" && attr == "class" && strings.HasPrefix(value, "language-"):
			arg = strings.TrimPrefix(value, "language-")
		case name == "span" && attr == "class" && strings.HasPrefix(value, "tg-"):
			arg = strings.TrimPrefix(value, "tg-")
		case name == "blockquote" && attr == "expandable":
			arg = "1"
		}
	}
	if name == "span" && arg != "spoiler" {
		return 0, htmlErrorf("Tag \"span\" must have class \"tg-spoiler\" at byte offset %d", begin)
	}
	p.stack = append(p.stack, openTag{name: name, arg: arg, offset: p.u16, textAt: p.out.Len()})
	return i + 1, nil
}

// attrValue reads an unquoted name token (lowercased) or a quoted string (references decoded) at i.
func (p *htmlParser) attrValue(i int) (string, int, error) {
	q := p.at(i)
	if q != '"' && q != '\'' {
		start := i
		for isAlnum(p.at(i)) || p.at(i) == '.' || p.at(i) == '-' {
			i++
		}
		if !isHTMLSpace(p.at(i)) && p.at(i) != '>' {
			return "", 0, htmlErrorf("Unexpected end of name token at byte offset %d", start)
		}
		return strings.ToLower(p.src[start:i]), i, nil
	}
	i++
	var b strings.Builder
	for p.at(i) != 0 && p.at(i) != q {
		if p.at(i) == '&' {
			r, next, err := p.reference(i)
			if err != nil {
				return "", 0, err
			}
			if next > i {
				b.WriteRune(r)
				i = next
				continue
			}
		}
		b.WriteByte(p.src[i])
		i++
	}
	if p.at(i) == q {
		i++
	}
	return b.String(), i, nil
}

func (p *htmlParser) endTag(begin int) (int, error) {
	if len(p.stack) == 0 {
		return 0, htmlErrorf("Unexpected end tag at byte offset %d", begin)
	}
	i := begin + 2
	for p.at(i) != 0 && !isHTMLSpace(p.at(i)) && p.at(i) != '>' {
		i++
	}
	name := strings.ToLower(p.src[begin+2 : i])
	for p.at(i) != 0 && isHTMLSpace(p.at(i)) {
		i++
	}
	if p.at(i) != '>' {
		return 0, htmlErrorf("Unclosed end tag at byte offset %d", begin)
	}
	open := p.stack[len(p.stack)-1]
	// "</>" closes whatever is open, as Telegram allows.
	if name != "" && name != open.name {
		return 0, htmlErrorf("Unmatched end tag at byte offset %d, expected \"</%s>\", found \"</%s>\"", begin, open.name, name)
	}
	p.stack = p.stack[:len(p.stack)-1]
	if open.name == "tg-emoji" {
		if id, err := strconv.ParseInt(open.arg, 10, 64); err != nil || id <= 0 || open.arg[0] == '+' {
			return 0, htmlErrorf("Invalid custom emoji identifier specified")
		}
	}
	if length := p.u16 - open.offset; length > 0 {
		p.addEntity(open, length)
	}
	return i + 1, nil
}

func (p *htmlParser) addEntity(open openTag, length int) {
	e := Entity{Offset: open.offset, Length: length}
	var last *Entity
	if n := len(p.entities); n > 0 && p.entities[n-1].Offset == e.Offset && p.entities[n-1].Length == e.Length {
		last = &p.entities[n-1]
	}
	switch open.name {
	case "b", "strong":
		e.Type = "bold"
	case "i", "em":
		e.Type = "italic"
	case "u", "ins":
		e.Type = "underline"
	case "s", "strike", "del":
		e.Type = "strikethrough"
	case "span", "tg-spoiler":
		e.Type = "spoiler"
	case "tg-emoji":
		e.Type, e.CustomEmojiID = "custom_emoji", open.arg
	case "blockquote":
		e.Type = "blockquote"
		if open.arg != "" {
			e.Type = "expandable_blockquote"
		}
	case "a":
		url := open.arg
		if url == "" {
			url = p.out.String()[open.textAt:]
		}
		if strings.TrimSpace(url) == "" {
			return
		}
		e.Type, e.URL = "text_link", url
	case "code":
		// <pre><code class="language-x"> is one pre block with a language.
		if last != nil && last.Type == "pre" && open.arg != "" {
			last.Language = open.arg
			return
		}
		e.Type, e.Language = "code", open.arg
	case "pre":
		if last != nil && last.Type == "code" && last.Language != "" {
			last.Type = "pre"
			return
		}
		e.Type = "pre"
	default: // tg-time carries no entity the fake models
		return
	}
	p.entities = append(p.entities, e)
}

// stripCodeLanguages drops languages from code entities outside pre blocks: Telegram keeps them only on pre.
func stripCodeLanguages(ents []Entity) {
	for i := range ents {
		if ents[i].Type == "code" {
			ents[i].Language = ""
		}
	}
}
