package render

import (
	"bytes"
	"strings"
	"unicode"

	east "github.com/yuin/goldmark/extension/ast"
)

// maxTableWidth caps a column so one long cell doesn't pad every row into
// unreadable horizontal scrolling on a phone.
const maxTableWidth = 40

// table renders a GFM table as an aligned monospace block: Telegram has no
// tables, and a <pre> keeps the columns lined up. Cell formatting is dropped.
func (r *renderer) table(t *east.Table) {
	var rows [][]string
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			cells = append(cells, strings.TrimSpace(string(bytes.ReplaceAll(r.plainOf(cell), []byte("\n"), []byte(" ")))))
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		return
	}
	cols := 0
	for _, row := range rows {
		cols = max(cols, len(row))
	}
	widths := make([]int, cols)
	for _, row := range rows {
		for i, c := range row {
			widths[i] = min(max(widths[i], displayWidth(c)), maxTableWidth)
		}
	}
	var b, line []byte
	for ri, row := range rows {
		line = line[:0]
		for i := 0; i < cols; i++ {
			cell := ""
			if i < len(row) {
				cell = row[i]
			}
			if i > 0 {
				line = append(line, " | "...)
			}
			pad := strings.Repeat(" ", max(widths[i]-displayWidth(cell), 0))
			if i < len(t.Alignments) && t.Alignments[i] == east.AlignRight {
				line = append(line, pad...)
				line = append(line, cell...)
			} else {
				line = append(line, cell...)
				line = append(line, pad...)
			}
		}
		if ri > 0 {
			b = append(b, '\n')
		}
		b = append(b, bytes.TrimRight(line, " ")...)
		if _, ok := t.FirstChild().(*east.TableHeader); ok && ri == 0 {
			b = append(b, '\n')
			for i, w := range widths {
				if i > 0 {
					b = append(b, "-+-"...)
				}
				b = append(b, strings.Repeat("-", max(w, 1))...)
			}
		}
	}
	r.beginBlock(true)
	r.tag("<pre>")
	if r.html() {
		r.raw(b)
	} else {
		r.text(b)
	}
	r.tag("</pre>")
}

// displayWidth approximates monospace columns: wide East Asian characters
// and emoji take two, combining marks and joiners none.
func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		switch {
		case r == 0x200D || (r >= 0xFE00 && r <= 0xFE0F) ||
			unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r):
		case isWide(r):
			w += 2
		default:
			w++
		}
	}
	return w
}

// wideRanges are the East Asian Wide/Fullwidth blocks and the emoji that
// default to emoji presentation (Unicode EastAsianWidth "W").
var wideRanges = [][2]rune{
	{0x1100, 0x115F}, {0x231A, 0x231B}, {0x23E9, 0x23EC}, {0x23F0, 0x23F0},
	{0x23F3, 0x23F3}, {0x25FD, 0x25FE}, {0x2614, 0x2615}, {0x2648, 0x2653},
	{0x267F, 0x267F}, {0x2693, 0x2693}, {0x26A1, 0x26A1}, {0x26AA, 0x26AB},
	{0x26BD, 0x26BE}, {0x26C4, 0x26C5}, {0x26CE, 0x26CE}, {0x26D4, 0x26D4},
	{0x26EA, 0x26EA}, {0x26F2, 0x26F3}, {0x26F5, 0x26F5}, {0x26FA, 0x26FA},
	{0x26FD, 0x26FD}, {0x2705, 0x2705}, {0x270A, 0x270B}, {0x2728, 0x2728},
	{0x274C, 0x274C}, {0x274E, 0x274E}, {0x2753, 0x2755}, {0x2757, 0x2757},
	{0x2795, 0x2797}, {0x27B0, 0x27B0}, {0x27BF, 0x27BF}, {0x2B1B, 0x2B1C},
	{0x2B50, 0x2B50}, {0x2B55, 0x2B55}, {0x2E80, 0x303E}, {0x3041, 0xA4CF},
	{0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE30, 0xFE4F}, {0xFF00, 0xFF60},
	{0xFFE0, 0xFFE6}, {0x1F000, 0x1FAFF}, {0x20000, 0x3FFFD},
}

func isWide(r rune) bool {
	if r < 0x1100 {
		return false
	}
	for _, rg := range wideRanges {
		if r < rg[0] {
			return false
		}
		if r <= rg[1] {
			return true
		}
	}
	return false
}
