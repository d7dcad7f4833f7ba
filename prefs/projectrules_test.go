package prefs

import (
	"slices"
	"testing"
)

func TestOwnRulesAndToldSets(t *testing.T) {
	s := openTest(t)
	if err := s.AddOwnRules("", "/p", []string{"Bash(make)"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddOwnRules("", "/p", []string{"Bash(make)", "Write"}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.OwnRules("", "/p"); err != nil || !slices.Equal(got, []string{"Bash(make)", "Write"}) {
		t.Errorf("OwnRules = %q, %v", got, err)
	}
	if got, _ := s.OwnRules("box", "/p"); len(got) != 0 {
		t.Errorf("another machine's = %q", got)
	}
	for i, c := range []struct {
		key, digest string
		first       bool
	}{{"1", "a", true}, {"1", "a", false}, {"1", "b", true}, {"1", "a", false}, {"2", "a", true}} {
		if first, err := s.TellRulesOnce(c.key, "", "/p", c.digest); err != nil || first != c.first {
			t.Errorf("%d: TellRulesOnce(%s, %s) = %v, %v; want %v", i, c.key, c.digest, first, err, c.first)
		}
	}
}
