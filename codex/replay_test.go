package codex

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
	"github.com/untether/untether/hold/holdtest"
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
	}, false)
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

// The connection drops while a re-attach's replay arrives (the bot
// restarted mid-turn on a host, and ssh failed meanwhile): what was
// gathered is kept, the relink replays on from the record after the last
// one read, and the replay is handled once, whole, then Replayed; what
// came after the first attach's replay (record 9) is read live after it.
func TestReplayCompleteAfterADropMidReplay(t *testing.T) {
	c, _, _ := handleRig()
	c.thread = "th"
	c.done, c.abandon, c.stderr = make(chan struct{}), make(chan struct{}), &tail{max: 8 << 10}
	c.o.Hold = &Hold{}
	const ask = `{"method":"item/commandExecution/requestApproval","id":1,"params":{"threadId":"th","turnId":"tu","itemId":"call_1","command":"ls","cwd":"/p","availableDecisions":["accept","cancel"]}}`
	first := holdtest.StandIn(t, hold.Welcome{Proto: hold.Proto, First: 1, Last: 8}, holdtest.Frames([]string{
		`i 5 {"jsonrpc":"2.0","id":3,"method":"turn/start","params":{"threadId":"th","input":[]}}`,
		`o 6 {"id":3,"result":{"turn":{"id":"tu"}}}`,
		`o 7 {"method":"turn/started","params":{"threadId":"th","turn":{"id":"tu"}}}`,
	}, true)) // dropped before record 8 and the replay's end
	var froms []uint64
	c.held = &heldWire{Link: hold.NewLink(first, func(_ context.Context, from uint64) (*hold.Client, error) {
		froms = append(froms, from)
		return holdtest.StandIn(t, hold.Welcome{Proto: hold.Proto, First: 1, Last: 9}, holdtest.Frames([]string{
			`o 8 ` + ask,
			`o 9 {"method":"item/agentMessage/delta","params":{"itemId":"m1","delta":"after"}}`,
			`r 9`,
			`x {"code":0}`,
		}, false)), nil
	}), from: 5, closing: make(chan struct{})}
	c.readHeld(true)
	var got []string
	for _, ev := range c.queue.Queued() {
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
		}
	}
	if want := []string{"started", "ask 1", "replayed", "text after", "exited"}; !slices.Equal(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
	if !slices.Equal(froms, []uint64{8}) {
		t.Errorf("relinked from %v, want record 8 once", froms)
	}
	if c.held.sentAt.Load() != 5 {
		t.Errorf("sentAt %d, want the replayed turn/start's 5", c.held.sentAt.Load())
	}
}
