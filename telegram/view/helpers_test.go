package view

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/untether/untether/telegram/render"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden and the table of commands in docs/commands.md from the current output")

// checkHTML asserts what every text of this package promises: valid
// Telegram HTML, valid UTF-8, no control characters but \n and \t, some
// visible text, and at most MaxMessage UTF-16 units of source.
func checkHTML(t testing.TB, what, html string) {
	t.Helper()
	checkHTMLWithin(t, what, html, render.Limits{Visible: MaxMessage, Source: MaxMessage})
}

// checkFinalParts checks parts of a final answer, which are bounded by
// render.Message (visible length) rather than by their HTML length.
func checkFinalParts(t testing.TB, what string, parts []string) {
	t.Helper()
	if len(parts) == 0 {
		t.Errorf("%s: no parts", what)
	}
	for i, p := range parts {
		checkHTMLWithin(t, what+" part "+strconv.Itoa(i+1), p, render.Message)
	}
}

func checkHTMLWithin(t testing.TB, what, html string, l render.Limits) {
	t.Helper()
	if err := render.Validate(html); err != nil {
		t.Errorf("%s: invalid HTML: %v\n%s", what, err, html)
	}
	if !utf8.ValidString(html) {
		t.Errorf("%s: invalid UTF-8", what)
	}
	for _, r := range html {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f {
			t.Errorf("%s: control character %U", what, r)
			break
		}
	}
	if n := utf16Units(html); n > l.Source {
		t.Errorf("%s: %d UTF-16 units, limit %d", what, n, l.Source)
	}
	if n := utf16Units(render.VisibleText(html)); n > l.Visible {
		t.Errorf("%s: %d visible UTF-16 units, limit %d", what, n, l.Visible)
	}
	if !render.Fits(html, l) {
		t.Errorf("%s: render.Fits says it exceeds %+v", what, l)
	}
	if strings.TrimSpace(render.VisibleText(html)) == "" {
		t.Errorf("%s: no visible text: %q", what, html)
	}
}

func checkParts(t testing.TB, what string, parts []string) {
	t.Helper()
	if len(parts) == 0 {
		t.Errorf("%s: no parts", what)
	}
	for i, p := range parts {
		checkHTML(t, what+" part "+strconv.Itoa(i+1), p)
	}
}

func checkKeyboard(t testing.TB, what string, kb Keyboard) {
	t.Helper()
	if err := kb.Validate(); err != nil {
		t.Errorf("%s: %v", what, err)
	}
}

// utf16Units counts independently of units(): a second implementation, so
// a bug in one cannot hide itself.
func utf16Units(s string) int {
	return len(utf16Encode(s))
}

func utf16Encode(s string) []uint16 {
	var out []uint16
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
			continue
		}
		out = append(out, uint16(r))
	}
	return out
}

// formatView is the golden form of a view: its parts, each with its size,
// and its keyboard.
func formatView(parts []string, kb Keyboard) string {
	var b strings.Builder
	for i, p := range parts {
		b.WriteString("=== part " + strconv.Itoa(i+1) + " (" + strconv.Itoa(utf16Units(p)) + " units)\n")
		b.WriteString(p + "\n")
	}
	if len(kb) > 0 {
		b.WriteString("=== keyboard\n")
		for _, row := range kb {
			var cells []string
			for _, btn := range row {
				cells = append(cells, "["+btn.Text+" → "+btn.Data+"]")
			}
			b.WriteString(strings.Join(cells, " ") + "\n")
		}
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (check, then rerun with -update):\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
