package token

import (
	"net/url"
	"testing"
)

func TestNew(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		tok := New()
		if len(tok) != 16 {
			t.Fatalf("New() = %q: %d characters, want 16", tok, len(tok))
		}
		if url.PathEscape(tok) != tok {
			t.Fatalf("New() = %q is not URL-safe", tok)
		}
		if seen[tok] {
			t.Fatalf("New() repeated %q", tok)
		}
		seen[tok] = true
	}
}
