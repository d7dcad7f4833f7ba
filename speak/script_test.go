package speak

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestScriptLeavesCodeAndTablesOut: a code block and a table are said in
// a few words, none of their content is spoken; the prose around them is.
func TestScriptLeavesCodeAndTablesOut(t *testing.T) {
	md := "## Fixed\n\nThe **build** is green now.\n\n```go\nfunc main() {\n\tpanic(\"secret_code_line\")\n}\n```\n\n" +
		"| file | lines |\n|------|------:|\n| a.go | 10 |\n| b.go | 20 |\n\nThat is all."
	got := Script(md, 0)
	for _, leftOut := range []string{"panic", "secret_code_line", "a.go", "b.go", "lines |", "```", "**", "##", "|"} {
		if strings.Contains(got, leftOut) {
			t.Errorf("script says %q:\n%s", leftOut, got)
		}
	}
	for _, said := range []string{"Fixed", "The build is green now.", "A code block of 3 lines.", "A table of 2 rows.", "That is all."} {
		if !strings.Contains(got, said) {
			t.Errorf("script lacks %q:\n%s", said, got)
		}
	}
}

// TestScriptWords: links by their text, bare URLs as "a link", long paths
// by their last part, short inline code as it is and long code in words,
// list and quote marks dropped.
func TestScriptWords(t *testing.T) {
	cases := []struct{ in, want string }{
		{"See [the docs](https://example.com/docs) now.", "See the docs now."},
		{"Open https://example.com/x?y=1 please", "Open a link please"},
		{"I changed /home/me/src/untether/telegram/finish.go today.", "I changed finish.go today."},
		{"Run `go test` first.", "Run go test first."},
		{"Set `" + strings.Repeat("x", 50) + "` here.", "Set a piece of code here."},
		{"- one\n- *two*\n1. three", "one two three"},
		{"> quoted ~~old~~ text", "quoted old text"},
		{"![a diagram](pic.png)", "a diagram"},
		{"A code block:\n```\nx\n```", "A code block:\n\nA code block of 1 line."},
		{"snake_case_name stays", "snake_case_name stays"},
	}
	for _, c := range cases {
		if got := Script(c.in, 0); got != c.want {
			t.Errorf("Script(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestScriptCut: a long answer is cut at a sentence within the limit, and
// the closing line says the rest is in the message.
func TestScriptCut(t *testing.T) {
	md := strings.Repeat("This sentence is about nine words long, roughly. ", 100)
	got := Script(md, 300)
	if !strings.HasSuffix(got, ". "+Rest) {
		t.Errorf("no closing line after a whole sentence: %q", got)
	}
	if n := utf8.RuneCountInString(strings.TrimSuffix(got, " "+Rest)); n > 300 {
		t.Errorf("spoken part %d characters, limit 300", n)
	}
	if short := Script("Short.", 300); short != "Short." {
		t.Errorf("a short answer changed: %q", short)
	}
}
