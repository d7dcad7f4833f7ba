package codex

import (
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
)

// The replay of a re-attach, on records as a journal holds them (the
// shapes measured with Codex 0.171.0): the previous bot's responses are
// skipped, the request it answered is not asked again, the one it did
// not answer is pending again, one resolved meanwhile is withdrawn, the
// turn's id comes back from turn/started, and the prompt is counted.
func TestReplayRestoresTheTurn(t *testing.T) {
	c, _, logs := handleRig()
	c.log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c.thread = "th"
	c.held = &heldWire{Link: hold.NewLink(&hold.Client{Welcome: hold.Welcome{First: 1}}, nil), from: 5}
	rec := func(seq uint64, in bool, line string) hold.Frame {
		k := byte('o')
		if in {
			k = 'i'
		}
		return hold.Frame{Kind: k, Record: hold.Record{Seq: seq, In: in, Line: []byte(line)}}
	}
	const ask = `"params":{"threadId":"th","turnId":"tu","itemId":"call_%s","command":"/bin/bash -lc 'touch x'","cwd":"/p","availableDecisions":["accept","cancel"]}}`
	c.replay([]hold.Frame{
		rec(5, true, `{"jsonrpc":"2.0","id":3,"method":"turn/start","params":{"threadId":"th","input":[]}}`),
		rec(6, false, `{"id":3,"result":{"turn":{"id":"tu","status":"inProgress"}}}`),
		rec(7, false, `{"method":"turn/started","params":{"threadId":"th","turn":{"id":"tu"}}}`),
		rec(8, false, `{"method":"item/commandExecution/requestApproval","id":0,`+strings.Replace(ask, "%s", "1", 1)),
		rec(9, true, `{"jsonrpc":"2.0","id":0,"result":{"decision":"accept"}}`),
		rec(10, false, `{"method":"item/commandExecution/requestApproval","id":1,`+strings.Replace(ask, "%s", "2", 1)),
		rec(11, false, `{"method":"item/commandExecution/requestApproval","id":2,`+strings.Replace(ask, "%s", "3", 1)),
		rec(12, false, `{"method":"serverRequest/resolved","params":{"threadId":"th","requestId":2}}`),
	})
	var got []string
	for _, ev := range c.queue.Queued() {
		switch e := ev.(type) {
		case engine.SessionStarted:
			got = append(got, "started")
		case engine.ApprovalRequest:
			got = append(got, "ask "+e.RequestID)
		case engine.ApprovalCancelled:
			got = append(got, "withdrawn "+e.RequestID)
		case engine.Replayed:
			if e.Prompts != 1 || e.Truncated {
				t.Errorf("replayed = %+v", e)
			}
			got = append(got, "replayed")
		default:
			t.Errorf("unexpected event %#v", ev)
		}
	}
	if want := []string{"started", "ask 1", "ask 2", "withdrawn 2", "replayed"}; !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
	c.mu.Lock()
	turn, running, pending := c.turn, c.running, len(c.pending)
	c.mu.Unlock()
	if turn != "tu" || !running || pending != 1 || c.held.sentAt.Load() != 5 {
		t.Errorf("turn %q running %v pending %d sentAt %d", turn, running, pending, c.held.sentAt.Load())
	}
	if !strings.Contains(logs.String(), "codex response to the previous bot's request, skipped") {
		t.Errorf("the stale response was not logged:\n%s", logs.String())
	}
}
