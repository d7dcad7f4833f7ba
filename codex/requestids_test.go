package codex

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
)

// Codex numbers its own requests from 0 in every app-server process, and
// the bot's approval buttons are derived from the conversation and the
// request id (approvals.Config.TokenSeed, so that they survive a restart).
// The ids the engine hands out must therefore differ between two
// processes of one conversation: otherwise the Approve button of a first
// process's request 0 (its message left with its buttons, say an edit
// failed at a restart) approves the next process's request 0, a command
// it never showed. A re-attached Conn keeps its process's ids, so that the
// buttons shown before the restart still answer their own request.
func TestRequestIDsAreTheProcesss(t *testing.T) {
	const ask = `{"method":"item/commandExecution/requestApproval","id":0,"params":{"threadId":"th","turnId":"tu","itemId":"c1","command":"ls","cwd":"/p","availableDecisions":["accept","cancel"]}}`
	first := func(c *Conn) string {
		c.handle([]byte(ask))
		for _, ev := range c.queue.Queued() {
			if r, ok := ev.(engine.ApprovalRequest); ok {
				return r.RequestID
			}
		}
		t.Fatal("no approval request")
		return ""
	}
	rig := func() *Conn {
		c, _, _ := handleRig()
		n := newConn(c.o, engine.Spec{})
		n.rpc = c.rpc
		return n
	}
	a, b := rig(), rig()
	ida, idb := first(a), first(b)
	if ida == idb {
		t.Errorf("two processes' request 0 are both %q", ida)
	}

	// Re-attached: the same process, the same ids.
	a.held = &heldWire{Link: hold.NewLink(&hold.Client{}, nil), handle: hold.Handle{}}
	a.thread = "th"
	var hh heldHandle
	if err := json.Unmarshal([]byte(HeldConn{a}.Handle()), &hh); err != nil {
		t.Fatal(err)
	}
	r := newConn(a.o, engine.Spec{})
	r.rpc = a.rpc
	r.restoreHandle(hh)
	if got := first(r); got != ida {
		t.Errorf("re-attached, request 0 is %q, was %q", got, ida)
	}
	// Answered by that id, Codex gets its own id back.
	var out strings.Builder
	r.rpc = newRPC(&out)
	if err := r.Allow(context.Background(), ida, nil, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"id":0,`) {
		t.Errorf("the answer = %s, want Codex's id 0", out.String())
	}
}
