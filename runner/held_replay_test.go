package runner

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
	"github.com/untether/untether/hold/holdtest"
)

// The connection drops while a re-attach's replay arrives (the bot
// restarted mid-turn on a host, and ssh failed meanwhile): what was
// gathered is kept, the relink replays on from the record after the last
// one read, and the replay is handled once, whole, then Replayed: the
// prompt is counted and the request not answered is asked again. What
// came after the first attach's replay (record 9) is read live after it.
func TestHeldReplayCompleteAfterADropMidReplay(t *testing.T) {
	s := newSession(Options{Mode: Interactive, Hold: &Hold{}}.withDefaults())
	first := holdtest.StandIn(t, hold.Welcome{Proto: hold.Proto, First: 1, Last: 8}, holdtest.Frames([]string{
		`i 5 {"type":"user","message":{"role":"user","content":"hi"}}`,
		`o 6 {"type":"system","subtype":"init","session_id":"s1","model":"m"}`,
		`o 7 {"type":"assistant","message":{"content":[{"type":"text","text":"before"}]}}`,
	}, true)) // dropped before record 8 and the replay's end
	var froms []uint64
	s.held = &heldConn{Link: hold.NewLink(first, func(_ context.Context, from uint64) (*hold.Client, error) {
		froms = append(froms, from)
		return holdtest.StandIn(t, hold.Welcome{Proto: hold.Proto, First: 1, Last: 9}, holdtest.Frames([]string{
			`o 8 {"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"},"tool_use_id":"toolu_1"}}`,
			`o 9 {"type":"assistant","message":{"content":[{"type":"text","text":"after"}]}}`,
			`r 9`,
			`x {"code":0}`,
		}, false)), nil
	}), from: 5}
	s.heldLoop()
	var got []string
	for _, ev := range s.queue.Queued() {
		switch e := ev.(type) {
		case engine.SessionStarted:
			got = append(got, "started")
		case engine.ApprovalRequest:
			got = append(got, "ask "+e.RequestID)
		case engine.Replayed:
			if e.Prompts != 1 || e.Truncated {
				t.Errorf("replayed = %+v", e)
			}
			got = append(got, "replayed")
		case engine.Text:
			got = append(got, "text "+e.Text)
		case engine.Exited:
			got = append(got, "exited")
		default:
			got = append(got, fmt.Sprintf("%T", ev))
		}
	}
	if want := []string{"started", "text before", "ask r1", "replayed", "text after", "exited"}; !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
	if !slices.Equal(froms, []uint64{8}) {
		t.Errorf("relinked from %v, want record 8 once", froms)
	}
	if s.SentAt() != 5 {
		t.Errorf("SentAt %d, want the replayed prompt's 5", s.SentAt())
	}
}

// The replay names the lines steered into the turn that it holds, so that
// the bot stops following a message whose line never reached the holder
// (still waiting for the writer when the bot stopped): that one runs as an
// ordinary message instead of waiting for a run that never comes.
func TestHeldReplayNamesTheSteeredLinesItHolds(t *testing.T) {
	s := newSession(Options{Mode: Interactive}.withDefaults())
	in := func(seq uint64, line string) hold.Frame {
		return hold.Frame{Kind: 'i', Record: hold.Record{Seq: seq, In: true, Line: []byte(line)}}
	}
	s.replay(nil, []hold.Frame{
		in(5, `{"type":"user","uuid":"p1","message":{"role":"user","content":"work"}}`),
		in(6, `{"type":"user","uuid":"s1","priority":"next","message":{"role":"user","content":"also this"}}`),
	}, false)
	var got *engine.Replayed
	for _, ev := range s.queue.Queued() {
		if e, ok := ev.(engine.Replayed); ok {
			got = &e
		}
	}
	if got == nil || got.Prompts != 1 || !slices.Equal(got.Steered, []string{"s1"}) {
		t.Errorf("Replayed = %+v, want 1 prompt and steered [s1]", got)
	}
}
