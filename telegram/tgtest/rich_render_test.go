package tgtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/untether/untether/telegram/render"
)

// What the bot makes of Claude's Markdown as a rich message passes the
// fake's checks: every sample of the renderer's golden tests, and the
// constructs rich messages are for.
func TestRenderedRichIsAccepted(t *testing.T) {
	samples, err := filepath.Glob(filepath.Join("..", "render", "testdata", "*.md"))
	if err != nil || len(samples) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	sources := map[string]string{
		"table":   "| a | b |\n|:-|-:|\n| `x` | **y** |",
		"tasks":   "- [x] done\n  - [ ] nested\n- [ ] todo",
		"heading": "# One\n## Two\n###### Six",
		"nested":  "> quote\n>\n> - list in quote\n>   1. ordered\n>\n> ```go\n> code\n> ```",
		"html":    "<details><summary>x</summary>raw</details>\n\n<b>inline</b> raw",
	}
	for _, p := range samples {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sources[filepath.Base(p)] = string(b)
	}
	for name, src := range sources {
		html := render.Rich(src)
		if html == "" || !render.FitsRich(html) {
			continue // nothing to send, or sent the plain way
		}
		if _, err := parseRichHTML(html); err != nil {
			t.Errorf("%s: the fake refuses the bot's rich HTML: %v\n%s", name, err, html)
		}
	}
}

// FuzzRenderedRich: whatever Claude writes, the rich HTML the bot would
// send (when it fits) passes the fake's checks.
func FuzzRenderedRich(f *testing.F) {
	for _, s := range []string{"| a | b |\n|---|---|\n| 1 | 2 |", "- [ ] x\n> q\n# h", "```go\nx\n```", "*a **b** c*", "<p>raw</p>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		html := render.Rich(src)
		if html == "" || !render.FitsRich(html) {
			return
		}
		if _, err := parseRichHTML(html); err != nil {
			t.Errorf("refused: %v\nsource %q\nhtml %s", err, src, html)
		}
	})
}
