package render

import (
	"fmt"
	"strings"
	"testing"
)

// claudeAnswer builds a realistic long answer: headings, prose with inline
// formatting, nested lists, code blocks, a quote and a table, about 20 KB.
func claudeAnswer() string {
	var b strings.Builder
	for i := 0; b.Len() < 20000; i++ {
		fmt.Fprintf(&b, "## Step %d: update `pkg%d`\n\n", i, i)
		fmt.Fprintf(&b, "The **decoder** in `runner/decode%d.go` assumed complete lines; see [the docs](https://pkg.go.dev/bufio#Scanner) "+
			"and *note* that `a < b && c > d` must hold. This paragraph is long enough to wrap on a phone screen, "+
			"which is what most of Claude's prose looks like.\n\n", i)
		b.WriteString("1. First change\n2. Second change:\n   - nested detail with **bold**\n   - another one with `code`\n3. Third\n\n")
		fmt.Fprintf(&b, "```go\nfunc handle%d(ctx context.Context, req *Request) (*Response, error) {\n"+
			"\tif req == nil || len(req.Items) > maxItems {\n\t\treturn nil, fmt.Errorf(\"bad request: %%w\", ErrInvalid)\n\t}\n"+
			"\tfor _, it := range req.Items {\n\t\tif err := process(ctx, it); err != nil {\n\t\t\treturn nil, err\n\t\t}\n\t}\n"+
			"\treturn &Response{OK: true}, nil\n}\n```\n\n", i)
		b.WriteString("> **Note:** run `go test ./...` before committing.\n\n")
		b.WriteString("| File | Change |\n|------|--------|\n| decode.go | buffer lines |\n| decode_test.go | new tests |\n\n")
	}
	return b.String()
}

func BenchmarkMarkdownSplit(b *testing.B) {
	md := claudeAnswer()
	b.SetBytes(int64(len(md)))
	b.ReportAllocs()
	for b.Loop() {
		if parts := Parts(md, MaxMessage); len(parts) < 5 {
			b.Fatalf("only %d parts", len(parts))
		}
	}
}

// BenchmarkMarkdownSplitWithin is the path of final answers: parts bounded
// by visible length, markup and entity count (Message).
func BenchmarkMarkdownSplitWithin(b *testing.B) {
	md := claudeAnswer()
	b.SetBytes(int64(len(md)))
	b.ReportAllocs()
	for b.Loop() {
		if parts := SplitWithin(Markdown(md), Message); len(parts) < 3 {
			b.Fatalf("only %d parts", len(parts))
		}
	}
}

func TestClaudeAnswerSplits(t *testing.T) {
	html := Markdown(claudeAnswer())
	checkHTMLParts(t, html, Split(html, MaxMessage), MaxMessage)
}
