package render

import (
	"strings"
	"testing"
)

func TestIsRich(t *testing.T) {
	long := "```go\n" + strings.Repeat("x := 1\n", LongCode+1) + "```"
	for src, want := range map[string]bool{
		"| a | b |\n|---|---|\n| 1 | 2 |":  true,
		"- [ ] write tests\n- [x] code it": true,
		"## Plan\n\nfirst":                 true,
		long:                               true,
		"```go\nx := 1\n```":               false,
		"just **bold** and `code`":         false,
		"- a\n- b":                         false,
		"#hashtag is no heading":           false,
	} {
		if got := IsRich(src); got != want {
			t.Errorf("IsRich(%.40q) = %v, want %v", src, got, want)
		}
	}
}

func TestRich(t *testing.T) {
	src := "## Results <1>\n\n| name | ok |\n|---|:-:|\n| `a<b` | **yes** |\n\n- [x] done\n- [ ] todo\n\n3. three\n4. four\n\n> quoted\n\n---\n\n<div>raw</div>"
	got := Rich(src)
	want := `<h2>Results &lt;1&gt;</h2>` +
		`<table><tr><th>name</th><th align="center">ok</th></tr><tr><td><code>a&lt;b</code></td><td align="center"><b>yes</b></td></tr></table>` +
		`<ul><li>☑ done</li><li>☐ todo</li></ul>` +
		`<ol start="3"><li>three</li><li>four</li></ol>` +
		`<blockquote><p>quoted</p></blockquote><hr><p>&lt;div&gt;raw&lt;/div&gt;</p>`
	if got != want {
		t.Errorf("Rich:\n got %s\nwant %s", got, want)
	}
	long := "```python\n" + strings.Repeat("print(1)\n", LongCode+5) + "```"
	folded := Rich(long)
	if !strings.HasPrefix(folded, `<details><summary>python · 35 lines</summary><pre><code class="language-python">print(1)`) ||
		!strings.HasSuffix(folded, "</code></pre></details>") {
		t.Errorf("a long code block is not folded: %.200s", folded)
	}
	s := RichStats(got)
	if s.Columns != 2 || s.Blocks != 14 || s.Depth < 3 || !FitsRich(got) {
		t.Errorf("stats %+v", s)
	}
}

func TestRichLimits(t *testing.T) {
	wide := "|" + strings.Repeat(" c |", RichMaxColumns+1) + "\n|" + strings.Repeat("---|", RichMaxColumns+1)
	if FitsRich(Rich(wide)) {
		t.Error("a table of 21 columns fits")
	}
	if FitsRich(Rich(strings.Repeat("- item\n", RichMaxBlocks))) {
		t.Error("501 blocks fit")
	}
	if FitsRich(Rich(strings.Repeat("é", RichMaxChars+1))) {
		t.Error("32,769 characters fit")
	}
	if !FitsRich(Rich(strings.Repeat("é", RichMaxChars))) {
		t.Error("32,768 characters do not fit")
	}
}
