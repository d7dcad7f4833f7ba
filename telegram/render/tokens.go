package render

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// scanTags finds every tag and decides which to keep: a closing tag must
// match the innermost open element (strays are dropped), and an element is
// dropped (text kept) when reopening it with its ancestors would cost more
// than a quarter of the limit, so a part always has room for content.
func scanTags(s string, limit int) []tagInfo {
	var tags []tagInfo
	type open struct {
		name string
		cum  int // reopen+close cost of this element and its kept ancestors
		drop bool
	}
	var stack []open
	budget := limit / 4
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			break
		}
		i += j
		end, name, closing := parseTag(s, i)
		if end < 0 {
			i++
			continue
		}
		t := tagInfo{start: i, end: end, name: name, closing: closing}
		if closing {
			if n := len(stack); n > 0 && stack[n-1].name == name {
				t.drop = stack[n-1].drop
				stack = stack[:n-1]
			} else {
				t.drop = true
			}
		} else {
			parent := 0
			for k := len(stack) - 1; k >= 0; k-- {
				if !stack[k].drop {
					parent = stack[k].cum
					break
				}
			}
			cum := parent + utf16Len(s[i:end]) + len(name) + 3
			t.drop = cum > budget
			if t.drop {
				cum = parent
			}
			stack = append(stack, open{name: name, cum: cum, drop: t.drop})
		}
		tags = append(tags, t)
		i = end
	}
	return tags
}

// parseTag reads a tag starting at s[i] == '<'. It returns end < 0 if there
// is no tag there. Quoted attribute values may contain '>'.
func parseTag(s string, i int) (end int, name string, closing bool) {
	j := i + 1
	if j < len(s) && s[j] == '/' {
		closing = true
		j++
	}
	start := j
	for j < len(s) && (isAlpha(s[j]) || (j > start && (isDigit(s[j]) || s[j] == '-'))) {
		j++
	}
	if j == start {
		return -1, "", false
	}
	name = strings.ToLower(s[start:j])
	var quote byte
	for ; j < len(s); j++ {
		c := s[j]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return j + 1, name, closing
		case c == '<':
			return -1, "", false
		}
	}
	return -1, "", false
}

// hasVisible reports whether s has a non-space character: a part of only
// whitespace would be an empty message to Telegram.
func hasVisible(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return true
		}
	}
	return false
}

// plainRun counts the leading bytes of s that are ASCII with no meaning to
// the splitter (not markup, not a break opportunity).
func plainRun(s string) int {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf, c == '<', c == '&', c == '\n', c == ' ':
			return i
		}
	}
	return len(s)
}

// graphemes approximates grapheme cluster boundaries well enough not to cut
// an emoji ZWJ sequence, a flag, a skin tone or an accent from its base.
type graphemes struct {
	prev rune
	ri   int // regional indicators in a row before the current rune
}

// next reports whether r continues the cluster of the previous rune. r < 0
// stands for a tag or entity, which ends any cluster.
func (g *graphemes) next(r rune) bool {
	prev := g.prev
	g.prev = r
	isRI := r >= 0x1F1E6 && r <= 0x1F1FF
	riBefore := g.ri
	if isRI {
		g.ri++
	} else {
		g.ri = 0
	}
	if r < 0 || prev <= 0 {
		return false
	}
	if r < utf8.RuneSelf && prev < utf8.RuneSelf {
		return false
	}
	switch {
	case prev == 0x200D, r == 0x200D,
		r >= 0xFE00 && r <= 0xFE0F,   // variation selectors
		r >= 0x1F3FB && r <= 0x1F3FF, // skin tones
		r >= 0xE0020 && r <= 0xE007F, // emoji tag sequences
		isRI && riBefore%2 == 1:
		return true
	}
	return r >= 0x300 && (unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.Is(unicode.Mc, r))
}

// entityEnd returns the end of a character reference at s[i] == '&', or 0.
func entityEnd(s string, i int) int {
	for j := i + 1; j < len(s) && j <= i+10; j++ {
		c := s[j]
		switch {
		case c == ';':
			if j > i+1 {
				return j + 1
			}
			return 0
		case isAlpha(c) || isDigit(c) || c == '#':
		default:
			return 0
		}
	}
	return 0
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// utf16Len counts UTF-16 code units, Telegram's unit for message length.
func utf16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}
