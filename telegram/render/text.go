package render

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Text helpers the bot uses on what Telegram sends (entities, mentions).

// UTF16Slice cuts s by UTF-16 offsets, as Telegram's entities count.
func UTF16Slice(s string, off, n int) string {
	u := utf16.Encode([]rune(s))
	if off < 0 || n < 0 || off+n > len(u) {
		return ""
	}
	return string(utf16.Decode(u[off : off+n]))
}

// ReplaceFold replaces the first match of old in s, compared rune by rune
// under Unicode case folding. Indexes are taken in s itself: a lower-cased
// copy is not as long as s ("Ⱥ" grows, "İ" shrinks), and cutting s where
// the copy matched cut the wrong text, or out of range.
func ReplaceFold(s, old, repl string) string {
	for i := range s {
		j := i
		for _, r := range old {
			c, n := utf8.DecodeRuneInString(s[j:])
			if n == 0 || !strings.EqualFold(string(c), string(r)) {
				j = -1
				break
			}
			j += n
		}
		if j >= 0 {
			return s[:i] + repl + s[j:]
		}
	}
	return s
}
