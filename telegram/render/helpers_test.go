package render

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// squeeze drops all whitespace: cuts may eat the newlines or space they
// happen at, nothing else.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// checkHTMLParts asserts the Split contract for parts cut from whole.
func checkHTMLParts(t testing.TB, whole string, parts []string, limit int) {
	t.Helper()
	checkPartsWithin(t, whole, parts, Limits{Visible: limit, Source: limit})
}

// checkPartsWithin asserts the SplitWithin contract for parts cut from whole.
func checkPartsWithin(t testing.TB, whole string, parts []string, l Limits) {
	t.Helper()
	l = l.norm()
	if err := Validate(whole); err != nil {
		t.Fatalf("unsplit html invalid: %v\n%s", err, whole)
	}
	var joined strings.Builder
	for i, p := range parts {
		if err := Validate(p); err != nil {
			t.Fatalf("part %d invalid: %v\n%s", i, err, p)
		}
		if n := utf16Len(p); n > l.Source {
			t.Fatalf("part %d has %d UTF-16 units of HTML > %d", i, n, l.Source)
		}
		vis := VisibleText(p)
		if n := utf16Len(vis); n > l.Visible {
			t.Fatalf("part %d has %d visible UTF-16 units > %d", i, n, l.Visible)
		}
		if n := strings.Count(p, "<") - strings.Count(p, "</"); l.Entities > 0 && n > l.Entities {
			t.Fatalf("part %d opens %d tags > %d", i, n, l.Entities)
		}
		if !Fits(p, l) {
			t.Fatalf("part %d: Fits says no", i)
		}
		if strings.TrimSpace(vis) == "" {
			t.Fatalf("part %d has no visible text: %q", i, p)
		}
		if !validUTF8NoSurrogates(p) {
			t.Fatalf("part %d has broken UTF-8", i)
		}
		joined.WriteString(vis)
	}
	if got, want := squeeze(joined.String()), squeeze(VisibleText(whole)); got != want {
		t.Fatalf("visible text changed by splitting:\n got %q\nwant %q", short(got), short(want))
	}
}

func checkPlainParts(t testing.TB, whole string, parts []string, limit int) {
	t.Helper()
	var joined strings.Builder
	for i, p := range parts {
		if n := utf16Len(p); n > limit {
			t.Fatalf("plain part %d has %d UTF-16 units > %d", i, n, limit)
		}
		if strings.TrimSpace(p) == "" {
			t.Fatalf("plain part %d is blank", i)
		}
		if !validUTF8NoSurrogates(p) {
			t.Fatalf("plain part %d has broken UTF-8", i)
		}
		joined.WriteString(p)
	}
	if got, want := squeeze(joined.String()), squeeze(whole); got != want {
		t.Fatalf("plain text changed by splitting:\n got %q\nwant %q", short(got), short(want))
	}
}

// validUTF8NoSurrogates: a cut inside a rune leaves invalid UTF-8, and Go
// encodes lone surrogates as invalid UTF-8 too.
func validUTF8NoSurrogates(s string) bool { return utf8.ValidString(s) }

func short(s string) string {
	if len(s) > 400 {
		return s[:200] + " … " + s[len(s)-200:]
	}
	return s
}
