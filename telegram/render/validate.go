package render

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// allowedTags maps Telegram's HTML tags to the attribute each may carry.
var allowedTags = map[string]string{
	"b": "", "strong": "", "i": "", "em": "", "u": "", "ins": "",
	"s": "", "strike": "", "del": "", "tg-spoiler": "",
	"span": "class", "a": "href", "code": "class", "pre": "class",
	"blockquote": "expandable",
}

// Validate reports whether html is acceptable to Telegram's HTML parse mode
// as this package produces it: only Telegram's tags, attributes only href on
// a, class on code/pre/span (span must be tg-spoiler), properly nested and
// closed, every < and & in text part of a tag or a supported entity
// (&lt; &gt; &amp; &quot; or numeric). It also enforces the nesting Telegram
// renders: nothing inside code, only code inside pre, pre and blockquote at
// top level, no link inside a link, no code inside a link.
func Validate(html string) error {
	var stack []string
	inside := func(name string) bool {
		for _, s := range stack {
			if s == name {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(html); {
		switch html[i] {
		case '&':
			n, err := checkEntity(html[i:])
			if err != nil {
				return fmt.Errorf("offset %d: %w", i, err)
			}
			i += n
		case '<':
			end, name, closing, attrs, err := readTag(html, i)
			if err != nil {
				return fmt.Errorf("offset %d: %w", i, err)
			}
			if closing {
				if len(stack) == 0 || stack[len(stack)-1] != name {
					return fmt.Errorf("offset %d: unmatched </%s>", i, name)
				}
				stack = stack[:len(stack)-1]
				i = end
				continue
			}
			if err := checkOpen(name, attrs, stack, inside); err != nil {
				return fmt.Errorf("offset %d: %w", i, err)
			}
			stack = append(stack, name)
			i = end
		default:
			_, size := utf8.DecodeRuneInString(html[i:])
			i += size
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("unclosed <%s>", stack[len(stack)-1])
	}
	return nil
}

func checkOpen(name string, attrs map[string]string, stack []string, inside func(string) bool) error {
	allowed, ok := allowedTags[name]
	if !ok {
		return fmt.Errorf("tag <%s> not supported", name)
	}
	for k := range attrs {
		if k != allowed {
			return fmt.Errorf("attribute %q not allowed on <%s>", k, name)
		}
	}
	switch name {
	case "a":
		if attrs["href"] == "" {
			return fmt.Errorf("<a> without href")
		}
	case "span":
		if attrs["class"] != "tg-spoiler" {
			return fmt.Errorf(`<span> needs class="tg-spoiler"`)
		}
	}
	if len(stack) > 0 {
		top := stack[len(stack)-1]
		switch {
		case top == "code":
			return fmt.Errorf("<%s> inside <code>", name)
		case top == "pre" && name != "code":
			return fmt.Errorf("<%s> inside <pre>", name)
		case name == "pre" || name == "blockquote":
			return fmt.Errorf("<%s> inside <%s>", name, top)
		}
	}
	if (name == "a" || name == "code") && inside("a") {
		return fmt.Errorf("<%s> inside <a>", name)
	}
	return nil
}

// readTag parses the tag at html[i] == '<' with double- or single-quoted
// attribute values (or a bare attribute name, for blockquote expandable).
func readTag(html string, i int) (end int, name string, closing bool, attrs map[string]string, err error) {
	j := i + 1
	if j < len(html) && html[j] == '/' {
		closing = true
		j++
	}
	start := j
	for j < len(html) && (isAlpha(html[j]) || (j > start && (isDigit(html[j]) || html[j] == '-'))) {
		j++
	}
	if j == start {
		return 0, "", false, nil, fmt.Errorf("bare '<' in text (must be &lt;)")
	}
	name = strings.ToLower(html[start:j])
	for {
		for j < len(html) && html[j] == ' ' {
			j++
		}
		if j >= len(html) {
			return 0, "", false, nil, fmt.Errorf("unterminated tag <%s", name)
		}
		if html[j] == '>' {
			return j + 1, name, closing, attrs, nil
		}
		if closing {
			return 0, "", false, nil, fmt.Errorf("junk in closing tag </%s", name)
		}
		k := j
		for j < len(html) && (isAlpha(html[j]) || html[j] == '-') {
			j++
		}
		if k == j {
			return 0, "", false, nil, fmt.Errorf("bad attribute in <%s", name)
		}
		key := strings.ToLower(html[k:j])
		val := ""
		if j < len(html) && html[j] == '=' {
			j++
			if j >= len(html) || (html[j] != '"' && html[j] != '\'') {
				return 0, "", false, nil, fmt.Errorf("unquoted attribute %s in <%s>", key, name)
			}
			q := html[j]
			e := strings.IndexByte(html[j+1:], q)
			if e < 0 {
				return 0, "", false, nil, fmt.Errorf("unterminated attribute %s in <%s>", key, name)
			}
			raw := html[j+1 : j+1+e]
			if strings.ContainsRune(raw, '<') {
				return 0, "", false, nil, fmt.Errorf("'<' in attribute %s", key)
			}
			for a := 0; a < len(raw); {
				if raw[a] != '&' {
					a++
					continue
				}
				n, err := checkEntity(raw[a:])
				if err != nil {
					return 0, "", false, nil, fmt.Errorf("attribute %s: %w", key, err)
				}
				a += n
			}
			val = VisibleText(raw)
			j += e + 2
		}
		if attrs == nil {
			attrs = map[string]string{}
		}
		if _, dup := attrs[key]; dup {
			return 0, "", false, nil, fmt.Errorf("duplicate attribute %s in <%s>", key, name)
		}
		attrs[key] = val
	}
}

// checkEntity validates the entity at s[0] == '&' and returns its length.
func checkEntity(s string) (int, error) {
	end := strings.IndexByte(s, ';')
	if end < 0 || end > 12 {
		return 0, fmt.Errorf("bare '&' (must be &amp;)")
	}
	body := s[1:end]
	switch body {
	case "lt", "gt", "amp", "quot":
		return end + 1, nil
	}
	if len(body) < 2 || body[0] != '#' {
		return 0, fmt.Errorf("unsupported entity &%s;", body)
	}
	digits, base := body[1:], 10
	if digits[0] == 'x' || digits[0] == 'X' {
		digits, base = digits[1:], 16
	}
	v, err := strconv.ParseUint(digits, base, 32)
	if err != nil || v == 0 || v > utf8.MaxRune || (v >= 0xD800 && v <= 0xDFFF) {
		return 0, fmt.Errorf("bad numeric entity &%s;", body)
	}
	return end + 1, nil
}

// VisibleText is what Telegram shows for html: tags removed, entities
// decoded. Its UTF-16 length is what Telegram checks against 4096. It
// assumes html passed Validate; anything unparsable is kept as text.
func VisibleText(html string) string {
	var b strings.Builder
	b.Grow(len(html))
	for i := 0; i < len(html); {
		switch html[i] {
		case '<':
			if end, _, _ := parseTag(html, i); end > 0 {
				i = end
				continue
			}
		case '&':
			if n, err := checkEntity(html[i:]); err == nil {
				b.WriteString(decodeEntity(html[i+1 : i+n-1]))
				i += n
				continue
			}
		}
		b.WriteByte(html[i])
		i++
	}
	return b.String()
}

func decodeEntity(body string) string {
	switch body {
	case "lt":
		return "<"
	case "gt":
		return ">"
	case "amp":
		return "&"
	case "quot":
		return `"`
	}
	digits, base := body[1:], 10
	if digits[0] == 'x' || digits[0] == 'X' {
		digits, base = digits[1:], 16
	}
	v, _ := strconv.ParseUint(digits, base, 32)
	return string(rune(v))
}
