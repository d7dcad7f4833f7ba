package hold_test

import (
	"testing"

	"github.com/untether/untether/hold"
)

func rec(seq uint64) hold.Frame {
	return hold.Frame{Kind: 'o', Record: hold.Record{Seq: seq, Line: []byte("x")}}
}

// A replay is complete at its last record, at its end's mark, or at a
// record past it (that one is not the replay's). Records the journal
// dropped, before the replay or within it while the connection was down,
// make it truncated.
func TestReplayGathersUpToItsLastRecord(t *testing.T) {
	type step struct {
		f                  hold.Frame
		gathered, complete bool
	}
	for _, tc := range []struct {
		name      string
		from      uint64
		w         hold.Welcome
		steps     []step
		frames    int
		truncated bool
	}{
		{"whole", 5, hold.Welcome{First: 1, Last: 7}, []step{{rec(5), true, false}, {rec(6), true, false}, {rec(7), true, true}}, 3, false},
		{"nothing to replay", 5, hold.Welcome{First: 1, Last: 4}, []step{{hold.Frame{Kind: 'e'}, false, false}, {hold.Frame{Kind: 'r', Seq: 4}, true, true}}, 0, false},
		{"dropped before", 5, hold.Welcome{First: 6, Last: 7}, []step{{rec(6), true, false}, {rec(7), true, true}}, 2, true},
		{"a gap after a relink", 5, hold.Welcome{First: 1, Last: 8}, []step{{rec(5), true, false}, {rec(7), true, false}, {rec(8), true, true}}, 3, true},
		{"its last dropped", 5, hold.Welcome{First: 1, Last: 7}, []step{{rec(5), true, false}, {rec(9), false, true}}, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := hold.NewReplay(tc.from, tc.w)
			for i, s := range tc.steps {
				if !r.Pending() {
					t.Fatalf("step %d: not pending", i)
				}
				if g, c := r.Gather(s.f); g != s.gathered || c != s.complete {
					t.Errorf("step %d (%c %d): gathered %v complete %v, want %v %v", i, s.f.Kind, s.f.Record.Seq, g, c, s.gathered, s.complete)
				}
			}
			frames, truncated := r.Take()
			if len(frames) != tc.frames || truncated != tc.truncated || r.Pending() {
				t.Errorf("took %d frames, truncated %v, pending %v; want %d, %v", len(frames), truncated, r.Pending(), tc.frames, tc.truncated)
			}
		})
	}
	var none *hold.Replay
	if none.Pending() {
		t.Error("a nil replay is pending")
	}
}
