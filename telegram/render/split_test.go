package render

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestSplitFitsInOnePart(t *testing.T) {
	h := Markdown("# Hi\n\nSome **bold** text & a [link](https://example.com).")
	parts := Split(h, MaxMessage)
	if len(parts) != 1 || parts[0] != h {
		t.Fatalf("Split = %q, want the input unchanged", parts)
	}
}

func TestSplitEmpty(t *testing.T) {
	for _, in := range []string{"", " \n\n ", "<b> </b>", "<pre>\n</pre>"} {
		if parts := Split(in, 100); len(parts) != 0 {
			t.Errorf("Split(%q) = %q, want no parts", in, parts)
		}
		if parts := SplitPlain(in, 100); strings.TrimSpace(in) == "" && len(parts) != 0 {
			t.Errorf("SplitPlain(%q) = %q, want no parts", in, parts)
		}
	}
	if parts := Parts("", MaxMessage); len(parts) != 0 {
		t.Errorf("Parts(\"\") = %q", parts)
	}
}

func TestSplitPreference(t *testing.T) {
	r := strings.Repeat
	cases := []struct {
		name, in, first string
	}{
		// A paragraph break wins over a later line break and space.
		{"paragraph", r("p", 60) + "\n\n" + r("l", 20) + "\n" + r("w", 5) + " " + r("x", 40), r("p", 60)},
		// A line break wins over a later space.
		{"line", r("a", 30) + " " + r("b", 30) + "\n" + r("c", 20) + " " + r("d", 50), r("a", 30) + " " + r("b", 30)},
		// A space wins over a hard cut.
		{"space", r("a", 70) + " " + r("b", 100), r("a", 70)},
		// A break in the first half loses to a later, weaker one.
		{"late line beats early paragraph", r("a", 10) + "\n\n" + r("b", 60) + "\n" + r("c", 60), r("a", 10) + "\n\n" + r("b", 60)},
		// No boundary at all: cut at the limit.
		{"hard", r("a", 250), r("a", 100)},
	}
	for _, tc := range cases {
		for _, plain := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/plain=%v", tc.name, plain), func(t *testing.T) {
				var parts []string
				if plain {
					parts = SplitPlain(tc.in, 100)
					checkPlainParts(t, tc.in, parts, 100)
				} else {
					parts = Split(tc.in, 100)
					checkHTMLParts(t, tc.in, parts, 100)
				}
				if parts[0] != tc.first {
					t.Errorf("first part = %q, want %q", parts[0], tc.first)
				}
			})
		}
	}
}

func TestSplitHardCutSizes(t *testing.T) {
	parts := SplitPlain(strings.Repeat("a", 250), 100)
	if got := []int{len(parts[0]), len(parts[1]), len(parts[2])}; len(parts) != 3 || !slices.Equal(got, []int{100, 100, 50}) {
		t.Fatalf("parts sizes = %v (%d parts), want [100 100 50]", got, len(parts))
	}
}

func TestSplitReopensCodeBlock(t *testing.T) {
	var md strings.Builder
	md.WriteString("```python\n")
	var lines []string
	for i := 0; md.Len() < 10000; i++ {
		l := fmt.Sprintf("    value_%d = compute(%d) if a < b & c else None  # line %d", i, i, i)
		lines = append(lines, l)
		md.WriteString(l + "\n")
	}
	md.WriteString("```\n")
	html := Markdown(md.String())
	parts := Split(html, MaxMessage)
	checkHTMLParts(t, html, parts, MaxMessage)
	if len(parts) < 3 {
		t.Fatalf("got %d parts, want at least 3 for %d bytes of code", len(parts), len(html))
	}
	const open, close = `<pre><code class="language-python">`, "</code></pre>"
	seen := 0
	for i, p := range parts {
		if !strings.HasPrefix(p, open) || !strings.HasSuffix(p, close) {
			t.Fatalf("part %d is not a complete python code block: %.60q … %.30q", i, p, p[max(0, len(p)-30):])
		}
		// Cuts fall at line ends: every line is whole, indentation included.
		for _, l := range strings.Split(VisibleText(p), "\n") {
			if !slices.Contains(lines, l) {
				t.Fatalf("part %d has a broken line %q", i, l)
			}
			seen++
		}
	}
	if seen != len(lines) {
		t.Fatalf("saw %d lines, want %d", seen, len(lines))
	}
}

func TestSplitNeverBreaksTagsOrEntities(t *testing.T) {
	html := Markdown("Some **bold & <strong>** text, a [link](https://example.com/?q=a&b=c) and `a<b>&c` " +
		"then 😀🇯🇵👍🏽 中文 &copy; &#x1F600; and a quote:\n\n> quoted *italic* text with a [link](https://x.example/)\n\n" +
		"```go\nif a < b && c > d {}\n```\n")
	for limit := MinLimit; limit <= 200; limit++ {
		parts := Split(html, limit)
		checkHTMLParts(t, html, parts, limit)
		plain := VisibleText(html)
		checkPlainParts(t, plain, SplitPlain(plain, limit), limit)
	}
}

func TestSplitKeepsGraphemes(t *testing.T) {
	family := "👨\u200d👩\u200d👧"
	in := strings.Repeat(family+"🇯🇵e\u0301", 20)
	for limit := MinLimit; limit < 40; limit++ {
		for _, p := range SplitPlain(in, limit) {
			if strings.HasPrefix(p, "\u200d") || strings.HasSuffix(p, "\u200d") || strings.HasPrefix(p, "\u0301") {
				t.Fatalf("limit %d: part %q splits a cluster", limit, p)
			}
			if n := strings.Count(p, "🇯"); n != strings.Count(p, "🇵") {
				t.Fatalf("limit %d: part %q splits a flag", limit, p)
			}
		}
	}
}

func TestSplitLazyReopen(t *testing.T) {
	// The cut falls at the space just before </b>: the next part must not
	// start with an empty <b></b>.
	in := "<b>" + strings.Repeat("a", 90) + " </b>" + strings.Repeat("x", 20)
	parts := Split(in, 100)
	checkHTMLParts(t, in, parts, 100)
	want := []string{"<b>" + strings.Repeat("a", 90) + "</b>", strings.Repeat("x", 20)}
	if !slices.Equal(parts, want) {
		t.Fatalf("parts = %q, want %q", parts, want)
	}
}

func TestSplitReopensAttributes(t *testing.T) {
	in := `<a href="https://example.com/?a=1&amp;b=2">` + strings.Repeat("word ", 200) + "</a>"
	parts := Split(in, 300)
	checkHTMLParts(t, in, parts, 300)
	if len(parts) < 3 {
		t.Fatalf("got %d parts", len(parts))
	}
	for i, p := range parts {
		if !strings.HasPrefix(p, `<a href="https://example.com/?a=1&amp;b=2">`) || !strings.HasSuffix(p, "</a>") {
			t.Fatalf("part %d does not carry the link: %q", i, p)
		}
	}
}

func TestSplitDropsTagsTooBigToReopen(t *testing.T) {
	href := "https://example.com/" + strings.Repeat("x", 2000)
	in := `before <a href="` + href + `">the link text</a> after`
	parts := Split(in, MaxMessage)
	checkHTMLParts(t, in, parts, MaxMessage)
	if strings.Contains(strings.Join(parts, ""), "<a") {
		t.Errorf("a link costing more than limit/4 to reopen was kept: %.80q", parts)
	}
	if parts := Split(in, 10000); len(parts) != 1 || parts[0] != in {
		t.Errorf("with room to spare the link must be kept")
	}
}

func TestSplitDeepNesting(t *testing.T) {
	// More nesting than a quarter of the limit can reopen.
	in := strings.Repeat("<b><i>", 200) + strings.Repeat("deep text ", 100) + strings.Repeat("</i></b>", 200)
	parts := Split(in, 200)
	checkHTMLParts(t, in, parts, 200)
}

func TestSplitRepairsWhatItCan(t *testing.T) {
	for in, want := range map[string][]string{
		"<b>never closed": {"<b>never closed</b>"},
		"stray</b> close": {"stray close"},
		"<b><i>x</b></i>": {"<b><i>x</i></b>"},
	} {
		if got := Split(in, 100); !slices.Equal(got, want) {
			t.Errorf("Split(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitClampsLimit(t *testing.T) {
	in := Markdown(strings.Repeat("**word** &amp; ", 20))
	parts := Split(in, 0)
	checkHTMLParts(t, in, parts, MinLimit)
}

func TestSplitLargeInput(t *testing.T) {
	// 1 MB with and without break opportunities: must stay linear.
	for _, in := range []string{
		strings.Repeat("a", 1<<20),
		strings.Repeat("word ", 1<<18),
		Markdown("```\n" + strings.Repeat("x := y < z\n", 1<<17) + "```"),
		Markdown(strings.Repeat("**a** ", 1<<17)),
	} {
		for _, parts := range [][]string{Split(in, MaxMessage), SplitWithin(in, Message)} {
			total := 0
			for _, p := range parts {
				total += len(p)
				if utf16Len(p) > Message.Source {
					t.Fatalf("part over limit")
				}
			}
			if total < len(in)*9/10 {
				t.Fatalf("parts hold %d bytes of %d", total, len(in))
			}
		}
	}
}

func TestSplitSkipsDroppedTagsInsideACut(t *testing.T) {
	// The empty link is too long to reopen within limit/4, so it is dropped
	// and the blank lines around it form one paragraph break. Cutting there
	// must not leave the splitter behind on its tag list.
	in := strings.Repeat("a", 60) + "\n\n" + `<a href="https://example.com/long/enough/to/be/dropped"></a>` +
		"\n\n<b>" + strings.Repeat("c", 200) + "</b>"
	parts := Split(in, 100)
	checkHTMLParts(t, in, parts, 100)
	if len(parts) != 4 || !strings.HasPrefix(parts[1], "<b>") {
		t.Fatalf("bold lost: %q", parts)
	}
}

func TestSplitWithinFillsVisibleLength(t *testing.T) {
	// Markup-heavy text: every word bold and an escaped ampersand, so the
	// HTML is about three times the visible text.
	in := Markdown(strings.Repeat("**word** & ", 1200))
	vis := utf16Len(VisibleText(in))
	l := Limits{Visible: 4096, Source: 20000}
	parts := SplitWithin(in, l)
	checkPartsWithin(t, in, parts, l)
	// Bounded by visible text alone, the parts are as few as it allows.
	if want := (vis + l.Visible - 1) / l.Visible; len(parts) != want {
		t.Errorf("%d parts for %d visible units, want %d", len(parts), vis, want)
	}
	if strict := Split(in, 4096); len(strict) <= len(parts) {
		t.Errorf("splitting by HTML length gave %d parts, by visible length %d: expected fewer", len(strict), len(parts))
	}
}

func TestSplitWithinSourceBinds(t *testing.T) {
	in := Markdown(strings.Repeat("[link](https://example.com/a/rather/long/path/to/somewhere) ", 300))
	l := Limits{Visible: 4096, Source: 3000}
	parts := SplitWithin(in, l)
	checkPartsWithin(t, in, parts, l)
	for i, p := range parts[:len(parts)-1] {
		// Cut by source: each full part comes close to its bound.
		if n := utf16Len(p); n < l.Source*3/4 {
			t.Errorf("part %d has %d units of HTML, expected near %d", i, n, l.Source)
		}
	}
}

func TestSplitWithinEntityCount(t *testing.T) {
	in := Markdown(strings.Repeat("*a* ", 450))
	l := Limits{Visible: 4096, Source: 100000, Entities: 100}
	parts := SplitWithin(in, l)
	checkPartsWithin(t, in, parts, l)
	if len(parts) != 5 {
		t.Errorf("%d parts for 450 entities at 100 a part, want 5", len(parts))
	}
}

func TestSplitWithinReopenedTagsCount(t *testing.T) {
	// A code block cut in two is reopened in the second part: both its
	// source and its entity count there are charged.
	in := Markdown("```go\n" + strings.Repeat("x := 1 // &&&\n", 400) + "```")
	l := Limits{Visible: 2000, Source: 4000, Entities: 2}
	parts := SplitWithin(in, l)
	checkPartsWithin(t, in, parts, l)
	for i, p := range parts {
		if !strings.HasPrefix(p, "<pre>") {
			t.Errorf("part %d does not reopen the code block: %q", i, short(p))
		}
	}
}

func TestFits(t *testing.T) {
	sixteen := strings.Repeat("a", MinLimit)
	for _, c := range []struct {
		html string
		l    Limits
		want bool
	}{
		{"<b>" + sixteen + "</b>", Limits{Visible: 16, Source: 23}, true},
		{"<b>" + sixteen + "x</b>", Limits{Visible: 16, Source: 100}, false},
		{"<b>" + sixteen + "</b>", Limits{Visible: 16, Source: 22}, false},
		{strings.Repeat("&amp;", 16), Limits{Visible: 16, Source: 80}, true},
		{strings.Repeat("&amp;", 17), Limits{Visible: 16, Source: 100}, false},
		{"<b>a</b><i>b</i>", Limits{Visible: 10, Source: 100, Entities: 1}, false},
		{"<b>a</b><i>b</i>", Limits{Visible: 10, Source: 100, Entities: 2}, true},
		{"😀", Limits{Visible: 1, Source: 100}, true}, // raised to MinLimit
	} {
		if got := Fits(c.html, c.l); got != c.want {
			t.Errorf("Fits(%q, %+v) = %v, want %v", c.html, c.l, got, c.want)
		}
	}
}
