package render

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzMarkdownSplit checks the whole pipeline on arbitrary Markdown: no
// panics, valid parts within the limit, nothing lost but whitespace at cuts.
func FuzzMarkdownSplit(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.md")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), uint16(0))
	}
	for _, s := range []string{
		"**bold", "a < b && c > d", "<script>alert(1)</script>", "> > > deep\n> - x\n>   ```\n>   code\n>   ```",
		"- a\n  - b\n    - c\n\n1) x\n2) y", "| a | b |\n|---|---|\n| 😀 | 中 |", "[x](https://a?b&c=\"d\")",
	} {
		f.Add(s, uint16(100))
	}
	f.Fuzz(func(t *testing.T, md string, small uint16) {
		html := Markdown(md)
		checkHTMLParts(t, html, Split(html, MaxMessage), MaxMessage)
		// A second, small limit makes short inputs exercise the cutting too.
		limit := MinLimit + int(small%300)
		checkHTMLParts(t, html, Split(html, limit), limit)
		checkPartsWithin(t, html, SplitWithin(html, Message), Message)
		// Bounds that bind in turn: visible text, source, entity count.
		tight := Limits{Visible: limit, Source: 2 * limit, Entities: 1 + limit/20}
		checkPartsWithin(t, html, SplitWithin(html, tight), tight)
		plain := Plain(md)
		checkPlainParts(t, plain, SplitPlain(plain, MaxMessage), MaxMessage)
		checkPlainParts(t, plain, SplitPlain(plain, limit), limit)
	})
}
