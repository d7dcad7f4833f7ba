package view

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/untether/untether/telegram/render"
)

func TestFinalFooter(t *testing.T) {
	for _, c := range []struct {
		f    Footer
		want string
	}{
		{Footer{Cost: 0.0123, Duration: 42 * time.Second, Turns: 3, InTokens: 12345, OutTokens: 1234, OK: true},
			"<i>$0.0123 · 42s · 3 turns · 12.3k in / 1.2k out</i>"},
		{Footer{Cost: 2.5, Duration: 61 * time.Minute, Turns: 1, InTokens: 2_000_000, OutTokens: 999, OK: true},
			"<i>$2.50 · 1h 01m · 1 turn · 2M in / 999 out</i>"},
		{Footer{Duration: 3 * time.Second, OK: true}, "<i>3s</i>"},
		{Footer{Cost: 0.5, Duration: 3 * time.Second}, "<i>✗ error · $0.50 · 3s</i>"},
	} {
		if got := FinalFooter(c.f); got != c.want {
			t.Errorf("FinalFooter(%+v) = %q, want %q", c.f, got, c.want)
		}
		checkHTML(t, "footer", FinalFooter(c.f))
	}
}

func TestFinalParts(t *testing.T) {
	footer := FinalFooter(Footer{Cost: 0.01, Duration: time.Second, OK: true})

	parts := FinalParts("**Done.** See `main.go`.", footer, render.Limits{})
	want := "<b>Done.</b> See <code>main.go</code>.\n\n" + footer
	if len(parts) != 1 || parts[0] != want {
		t.Errorf("short answer: %q, want %q", parts, want)
	}

	parts = FinalParts("  \n", footer, render.Limits{})
	if len(parts) != 1 || parts[0] != NoAnswer+"\n\n"+footer {
		t.Errorf("empty answer: %q", parts)
	}

	// An answer that fills its last part exactly leaves no room: the
	// footer becomes its own part.
	long := strings.Repeat("word ", 2000)
	parts = FinalParts(long, footer, render.Limits{})
	checkFinalParts(t, "long answer", parts)
	if last := parts[len(parts)-1]; !strings.HasSuffix(last, footer) {
		t.Errorf("footer missing from the last part")
	}
	if got := render.VisibleText(strings.Join(parts, " ")); strings.Count(got, "word") != 2000 {
		t.Errorf("%d words survived, want 2000", strings.Count(got, "word"))
	}
	exact := strings.Repeat("x", MaxMessage-2) // too long to share a part with the footer
	parts = FinalParts(exact, footer, render.Limits{})
	if len(parts) != 2 || parts[1] != footer {
		t.Errorf("footer should be its own part: %d parts, last %q", len(parts), parts[len(parts)-1])
	}

	parts = FinalParts("a\n\nb", "", render.Limits{Visible: 100})
	if len(parts) != 1 || parts[0] != "a\n\nb" {
		t.Errorf("no footer: %q", parts)
	}
	small := render.Limits{Visible: 300, Source: 500, Entities: 3}
	parts = FinalParts(strings.Repeat("small <parts> & 😀 **b** `c`\n\n", 50), footer, small)
	for _, p := range parts {
		if n := utf16Units(render.VisibleText(p)); n > 300 {
			t.Errorf("part of %d visible units with limit 300", n)
		}
		if n := utf16Units(p); n > 500 {
			t.Errorf("part of %d units of HTML with limit 500", n)
		}
		if err := render.Validate(p); err != nil {
			t.Error(err)
		}
	}
}

// TestFinalPartsCountVisibleText: markup does not count towards Telegram's
// 4096, so an answer with plenty of it still fills its messages.
func TestFinalPartsCountVisibleText(t *testing.T) {
	// Prose with some code and bold, like most answers: the HTML is about a
	// quarter longer than the text.
	var md strings.Builder
	for i := 0; md.Len() < 7000; i++ {
		fmt.Fprintf(&md, "Step %d: the function `parseConfig` in **config.go** reads the file & returns an error when a key is unknown.\n\n", i)
	}
	html := render.Markdown(md.String())
	parts := FinalParts(md.String(), "", render.Limits{})
	vis := utf16Units(render.VisibleText(html))
	if want := (vis + MaxMessage - 1) / MaxMessage; len(parts) != want {
		t.Errorf("%d parts for %d visible units (%d of HTML), want %d", len(parts), vis, utf16Units(html), want)
	}
	if strict := render.Split(html, MaxMessage); len(strict) <= len(parts) {
		t.Errorf("by HTML length %d parts, by visible length %d: expected fewer", len(strict), len(parts))
	}
	for i, p := range parts {
		if !render.Fits(p, render.Message) {
			t.Errorf("part %d exceeds render.Message", i)
		}
	}
}

func TestErrorText(t *testing.T) {
	var stderr strings.Builder
	for i := 0; i < 300; i++ {
		stderr.WriteString("line " + itoaTest(i%26) + ": <html><body>Bad Gateway & \"friends\"</body></html>\n")
	}
	stderr.WriteString("FATAL: <b>last line</b> & done\n")
	e := TurnError{
		What:       "Claude exited unexpectedly",
		Detail:     "The claude process ended with exit status 1 before finishing the turn.",
		Hint:       "Send the message again, or /new to start a fresh session.",
		StderrTail: stderr.String(),
	}
	got := ErrorText(e)
	checkHTML(t, "error", got)
	for _, s := range []string{"⚠️ <b>Claude exited unexpectedly</b>", "💡 Send the message again", "<pre>…\n",
		"FATAL: &lt;b&gt;last line&lt;/b&gt; &amp; done</pre>"} {
		if !strings.Contains(got, s) {
			t.Errorf("error text lacks %q:\n%s", s, got)
		}
	}
	pre := got[strings.Index(got, "<pre>")+len("<pre>") : strings.Index(got, "</pre>")]
	shown := strings.TrimPrefix(render.VisibleText(pre), "…\n")
	if n := utf8.RuneCountInString(shown); n > errStderrRunes || n < errStderrRunes-100 {
		t.Errorf("stderr block shows %d characters, want a bit under %d", n, errStderrRunes)
	}
	if !strings.HasSuffix(stderr.String(), shown+"\n") {
		t.Errorf("the block is not the end of stderr")
	}
	if strings.HasPrefix(strings.TrimPrefix(pre, "…\n"), "ine") {
		t.Error("the tail does not start at a line start")
	}
	golden(t, "error_stderr", got+"\n")

	huge := TurnError{What: strings.Repeat("<", 9000), Detail: strings.Repeat("&", 9000), Hint: strings.Repeat("\"", 9000), StderrTail: strings.Repeat("😀<", 9000)}
	checkHTML(t, "huge error", ErrorText(huge))
	if got := ErrorText(TurnError{}); got != "⚠️ <b>Something went wrong</b>" {
		t.Errorf("empty error: %q", got)
	}
}

func TestFinalRich(t *testing.T) {
	footer := FinalFooter(Footer{Cost: 0.5, Duration: 3 * time.Second, OK: true, Desk: "cd /w && claude --resume x"})
	html, ok := FinalRich("## Done\n\n| a | b |\n|---|---|\n| 1 | 2 |", footer)
	if !ok || !strings.HasPrefix(html, "<h2>Done</h2><table>") || strings.Count(html, "<p>") != 2 || strings.Contains(html, "\n") {
		t.Errorf("FinalRich = %v %q", ok, html)
	}
	if _, ok := FinalRich("plain **text**", footer); ok {
		t.Error("a plain answer is rich")
	}
	huge := "# Log\n\n" + strings.Repeat("- item\n", 600)
	if _, ok := FinalRich(huge, footer); ok {
		t.Error("an answer over the block limit is sent as a rich message")
	}
}
