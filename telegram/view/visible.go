package view

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Visible writes out every character of s that cannot be seen, or that
// changes how the text around it is displayed, as "<U+XXXX>": bidirectional
// overrides and isolates (U+202A–U+202E, U+2066–U+2069), zero-width
// characters (U+200B–U+200F, U+2060), the soft hyphen, the byte-order mark,
// tag characters (U+E0000–U+E007F), line and paragraph separators, C0 and
// C1 controls (carriage return included), private-use and unassigned code
// points, variation selectors, blank fillers and every space other than the
// ASCII one. Newline and tab pass. Invalid UTF-8 becomes U+FFFD.
//
// What the owner approves must read exactly as it runs: a U+202E in a
// command reverses what follows it on screen, a zero-width space splits a
// word the shell sees as one, and a no-break space looks like the blank
// that separates arguments but is not one. Use it on every piece of a tool
// input before it is shown (prompts, progress titles, the full-input file);
// not on Claude's prose, where emoji and right-to-left text need some of
// these characters. The output is plain text: escape it as usual.
func Visible(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	i := strings.IndexFunc(s, hidden)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if hidden(r) {
			fmt.Fprintf(&b, "<U+%04X>", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hidden reports whether r is shown as "<U+XXXX>" by Visible.
func hidden(r rune) bool {
	switch {
	case r == '\n' || r == '\t' || r == ' ':
		return false
	case !unicode.IsGraphic(r):
		// Cc (C0, DEL, C1), Cf (bidi controls, zero-width, soft hyphen,
		// BOM, tags, …), Zl, Zp, Co (private use) and Cn (unassigned).
		return true
	case unicode.Is(unicode.Zs, r):
		return true // U+00A0, U+2000–U+200A, U+202F, U+205F, U+3000, …
	case unicode.Is(unicode.Variation_Selector, r):
		return true // U+FE00–U+FE0F, U+E0100–U+E01EF, Mongolian FVS
	}
	switch r {
	case 0x034F, // combining grapheme joiner
		0x115F, 0x1160, 0x3164, 0xFFA0, // Hangul fillers: letters drawn as nothing
		0x2800: // braille blank, drawn as a space
		return true
	}
	return false
}

// hasHidden reports whether Visible would change s.
func hasHidden(s string) bool {
	return !utf8.ValidString(s) || strings.IndexFunc(s, hidden) >= 0
}
