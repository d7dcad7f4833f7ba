package view

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/untether/untether/telegram/render"
	"github.com/untether/untether/toolkinds"
)

const ellipsis = "…"

// clean makes untrusted text safe to put into a message: valid UTF-8, CR
// and CRLF turned into LF, and other control characters (which Telegram
// may refuse or show as boxes) removed, except tab.
func clean(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	ok := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\r':
			b.WriteByte('\n')
		case (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f:
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// oneLine folds every whitespace run into one space.
func oneLine(s string) string { return strings.Join(strings.Fields(clean(s)), " ") }

// esc is clean plus HTML escaping, for text whose size is already bounded.
func esc(s string) string { return render.Escape(clean(s)) }

// clip cuts clean(s) to at most n runes, ending with "…" when cut.
func clip(s string, n int) string { return toolkinds.Truncate(clean(s), n) }

// units counts UTF-16 code units, Telegram's unit for message length.
func units(s string) int {
	n := 0
	for _, r := range s {
		n += runeUnits(r)
	}
	return n
}

func runeUnits(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// escUnits is what r costs once escaped by render.Escape.
func escUnits(r rune) int {
	switch r {
	case '&':
		return len("&amp;")
	case '<', '>':
		return len("&lt;")
	case '"':
		return len("&quot;")
	}
	return runeUnits(r)
}

// escTotal is the UTF-16 length of s once escaped.
func escTotal(s string) int {
	total := 0
	for _, r := range s {
		total += escUnits(r)
	}
	return total
}

// escHead escapes the longest prefix of clean(s) whose escaped form fits
// budget UTF-16 units, "…" included when something was cut. Budgets count
// the escaped text because that is what occupies the message.
func escHead(s string, budget int) string {
	s = clean(s)
	if escTotal(s) <= budget {
		return render.Escape(s)
	}
	room := budget - units(ellipsis)
	if room < 0 {
		return ""
	}
	used, end := 0, 0
	for i, r := range s {
		c := escUnits(r)
		if used+c > room {
			break
		}
		used += c
		end = i + utf8.RuneLen(r)
	}
	return render.Escape(s[:end]) + ellipsis
}

// escTail is escHead from the end: "…" and the longest suffix that fits.
// When it can, it starts the suffix at a line start so the first shown line
// is whole.
func escTail(s string, budget int) string {
	s = clean(s)
	if escTotal(s) <= budget {
		return render.Escape(s)
	}
	room := budget - units(ellipsis+"\n")
	if room < 0 {
		return ""
	}
	used, start := 0, len(s)
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:start])
		c := escUnits(r)
		if used+c > room {
			break
		}
		used += c
		start -= size
	}
	tail := s[start:]
	// Prefer a whole first line, unless that would throw most of it away.
	if nl := strings.IndexByte(tail, '\n'); nl >= 0 && nl < len(tail)/2 {
		tail = tail[nl+1:]
	}
	return ellipsis + "\n" + render.Escape(tail)
}

// fit is the last guard of every message builder: the builders budget each
// piece so this should never cut, but if it does the result stays valid.
func fit(html string) string {
	if units(html) <= MaxMessage {
		return html
	}
	parts := render.Split(html, MaxMessage)
	if len(parts) == 0 {
		return ""
	}
	return parts[0]
}

// plural renders "1 step", "2 steps".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
