package safefile

import "testing"

// A Capped buffer keeps the first Max bytes and says every write went
// through, so the program writing is never stopped by it.
func TestCappedKeepsTheHead(t *testing.T) {
	b := &Capped{Max: 5}
	for _, p := range []string{"abc", "defg", "hij"} {
		if n, err := b.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if b.String() != "abcde" {
		t.Errorf("kept %q, want the first 5 bytes", b.String())
	}
}
