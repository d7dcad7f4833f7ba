package render

import (
	"strings"
	"sync"
	"testing"
)

func TestEscape(t *testing.T) {
	got := Escape(`<a href="x">Tom & "Jerry"</a>`)
	want := `&lt;a href=&quot;x&quot;&gt;Tom &amp; &quot;Jerry&quot;&lt;/a&gt;`
	if got != want {
		t.Errorf("Escape = %q, want %q", got, want)
	}
	if err := Validate("<b>" + Escape(`1 < 2 && "x" > y`) + "</b>"); err != nil {
		t.Errorf("escaped text is not valid HTML: %v", err)
	}
	if s := "no specials here"; Escape(s) != s {
		t.Errorf("Escape changed %q", s)
	}
}

func TestLinkSchemes(t *testing.T) {
	for dest, link := range map[string]bool{
		"https://example.com/":           true,
		"HTTP://EXAMPLE.COM/":            true,
		"tg://user?id=1":                 true,
		"mailto:a@example.com":           true,
		"javascript:alert(1)":            false,
		"JavaScript:alert(1)":            false,
		"file:///etc/passwd":             false,
		"data:text/html,x":               false,
		"vbscript:x":                     false,
		"docs/readme.md":                 false,
		"/abs/path":                      false,
		"#anchor":                        false,
		"https:":                         false,
		"ftp://example.com/":             false,
		"https://example.com/a b":        true, // percent-encoded by goldmark's URL escaping
		"<https://example.com/a%20b(c)>": true,
	} {
		html := Markdown("[text](" + dest + ")")
		if err := Validate(html); err != nil {
			t.Fatalf("%q: invalid html %v: %s", dest, err, html)
		}
		if got := strings.Contains(html, "<a href="); got != link {
			t.Errorf("link %q: got %s, want link=%v", dest, html, link)
		}
		if !strings.Contains(VisibleText(html), "text") {
			t.Errorf("link %q lost its text: %s", dest, html)
		}
	}
}

func TestRawHTMLIsShownNotPassed(t *testing.T) {
	for _, md := range []string{
		"<script>alert(1)</script>",
		"x <b onclick=\"y\">bold?</b> z",
		"<details>\n<summary>s</summary>\n\nbody\n</details>",
		"<!-- comment -->",
		"<a href=\"javascript:x\">a</a>",
	} {
		html := Markdown(md)
		if err := Validate(html); err != nil {
			t.Fatalf("%q → invalid %q: %v", md, html, err)
		}
		if strings.Contains(html, "<b") || strings.Contains(html, "<a") || strings.Contains(html, "<script") {
			t.Errorf("%q passed markup through: %q", md, html)
		}
		if squeeze(VisibleText(html)) != squeeze(strings.ReplaceAll(md, "\n", "")) {
			t.Errorf("%q: visible text %q should show the source", md, VisibleText(html))
		}
	}
}

func TestEntitiesAndEscapes(t *testing.T) {
	for md, want := range map[string]string{
		`\*x\*`:         "*x*",
		`&amp; &lt;`:    "&amp; &lt;",
		`\&amp;`:        "&amp;amp;",
		`&#0; &#xD800;`: "\uFFFD \uFFFD",
		"a\x00b":        "a\uFFFDb",
		"bad \xff utf8": "bad \uFFFD utf8",
	} {
		if got := Markdown(md); got != want {
			t.Errorf("Markdown(%q) = %q, want %q", md, got, want)
		}
	}
}

func TestPlain(t *testing.T) {
	md := "# Title\n\n**b** [x](https://e.com/?a&b) `c < d`\n\n> q\n\n- i\n  - j"
	want := "Title\n\nb x (https://e.com/?a&b) c < d\n\n> q\n\n• i\n    • j"
	if got := Plain(md); got != want {
		t.Errorf("Plain =\n%s\nwant\n%s", got, want)
	}
	parts := PlainParts(strings.Repeat("line of text\n", 1000), 100)
	for _, p := range parts {
		if strings.HasPrefix(p, "\n") || !strings.HasSuffix(p, "text") {
			t.Fatalf("plain part not cut at a line end: %q", p)
		}
	}
}

func TestCodeLanguageIsSanitized(t *testing.T) {
	html := Markdown("```go\"><b>x\nfmt.Println()\n```")
	if err := Validate(html); err != nil {
		t.Fatalf("invalid: %v: %s", err, html)
	}
	if !strings.HasPrefix(html, `<pre><code class="language-gobx">`) {
		t.Errorf("language not sanitized: %s", html)
	}
}

func TestConcurrentUse(t *testing.T) {
	src := "# T\n\n- a **b**\n- c\n\n```go\nx\n```\n"
	want := Markdown(src)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if got := Markdown(src); got != want {
					t.Errorf("concurrent Markdown differs: %q", got)
					return
				}
			}
		})
	}
	wg.Wait()
}
