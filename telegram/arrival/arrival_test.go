package arrival

import (
	"testing"
	"testing/synctest"
	"time"
)

// A stamp is the moment of its Mark, read once.
func TestStampsTakeOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s Stamps[int]
		if !s.Take(1).IsZero() {
			t.Fatal("a stamp before any Mark")
		}
		s.Mark(1)
		at := time.Now()
		time.Sleep(time.Second)
		if got := s.Take(1); !got.Equal(at) {
			t.Errorf("Take = %v, want %v", got, at)
		}
		if !s.Take(1).IsZero() {
			t.Error("a stamp read twice")
		}
	})
}
