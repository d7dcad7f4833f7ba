package prefs

import (
	"fmt"
	"strings"
	"testing"
)

// A transcript keeps a conversation's newest turns, oldest first, within
// its count and size, across a restart; conversations keep their own.
func TestTranscriptKeepsTheNewestTurnsWithinItsBounds(t *testing.T) {
	path := dbPath(t)
	s := openAt(t, path)
	lim := TranscriptLimits{Turns: 3, Bytes: 1 << 20}
	for i := 1; i <= 5; i++ {
		must(t, s.AppendTranscript("7", []byte(fmt.Sprintf("turn %d", i)), lim))
	}
	must(t, s.AppendTranscript("8", []byte("other"), lim))
	must(t, s.Close())

	s = openAt(t, path)
	got, err := s.Transcript("7")
	must(t, err)
	if want := "turn 3|turn 4|turn 5"; join(got) != want {
		t.Errorf("transcript = %q, want %q", join(got), want)
	}
	if other, _ := s.Transcript("8"); join(other) != "other" {
		t.Errorf("the other conversation's = %q", join(other))
	}
	if none, err := s.Transcript("9"); err != nil || none != nil {
		t.Errorf("an empty transcript = %q, %v", none, err)
	}

	// By size: 10 bytes hold two records of 5 bytes; a record bigger than
	// the bound alone is still kept, as the newest.
	small := TranscriptLimits{Turns: 100, Bytes: 10}
	for _, r := range []string{"aaaaa", "bbbbb", "ccccc"} {
		must(t, s.AppendTranscript("s", []byte(r), small))
	}
	if got, _ := s.Transcript("s"); join(got) != "bbbbb|ccccc" {
		t.Errorf("by size = %q, want the last two", join(got))
	}
	must(t, s.AppendTranscript("s", []byte(strings.Repeat("x", 50)), small))
	if got, _ := s.Transcript("s"); len(got) != 1 || len(got[0]) != 50 {
		t.Errorf("after a big record = %q, want it alone", join(got))
	}
}

func join(recs [][]byte) string {
	var s []string
	for _, r := range recs {
		s = append(s, string(r))
	}
	return strings.Join(s, "|")
}
