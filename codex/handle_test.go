package codex

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/untether/untether/engine"
)

// handleRig is a Conn without a process: what it writes to Codex goes to
// out, its log to logs, its events stay queued.
func handleRig() (*Conn, *bytes.Buffer, *bytes.Buffer) {
	var out, logs bytes.Buffer
	o := Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}.withDefaults()
	c := &Conn{o: o, log: o.Logger, rpc: newRPC(&out), queue: engine.NewQueue(), pending: map[string]approval{}, changes: map[string]json.RawMessage{}}
	return c, &out, &logs
}

func TestMalformedAndUnknownMessagesAreLoggedAndSkipped(t *testing.T) {
	c, out, logs := handleRig()
	c.handle([]byte(`not json at all`))
	c.handle([]byte(`{"method":"item/agentMessage/delta","params":"not an object"}`))
	c.handle([]byte(`{"method":"some/futureNotification","params":{}}`))
	c.handle([]byte(`{"id":7,"result":{}}`)) // a response nobody waits for
	c.handle([]byte(`{"id":3,"method":"some/futureRequest","params":{}}`))
	c.handle([]byte(`{"method":"item/agentMessage/delta","params":{"itemId":"m1","delta":"still here"}}`))

	evs := c.queue.Queued()
	if len(evs) != 1 || evs[0] != (engine.Text{MessageID: "m1", Text: "still here", Partial: true}) {
		t.Errorf("events = %#v, want only the good delta", evs)
	}
	for _, want := range []string{"codex message unreadable, skipped", "codex response to no request", "codex request unknown, refused"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
	// The unknown request is refused, so Codex does not wait for it.
	var m message
	if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &m); err != nil || string(m.ID) != "3" || m.Error == nil || m.Error.Code != -32601 {
		t.Errorf("written %q (%v), want an error answer to id 3", out.String(), err)
	}
}

func TestApprovalAnswers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		offer string
		do    func(*Conn, string) error
		want  string
	}{
		{"allow", `["accept","cancel"]`, func(c *Conn, id string) error { return c.Allow(t.Context(), id, nil, nil) }, "accept"},
		{"always where offered", `["accept","acceptForSession"]`, func(c *Conn, id string) error {
			return c.Allow(t.Context(), id, nil, []json.RawMessage{json.RawMessage(`{}`)})
		}, "acceptForSession"},
		{"always where not offered is a plain accept", `["accept","cancel"]`, func(c *Conn, id string) error {
			return c.Allow(t.Context(), id, nil, []json.RawMessage{json.RawMessage(`{}`)})
		}, "accept"},
		{"deny", `["accept"]`, func(c *Conn, id string) error { return c.Deny(t.Context(), id, "no", false) }, "decline"},
		{"deny and stop", `["accept"]`, func(c *Conn, id string) error { return c.Deny(t.Context(), id, "no", true) }, "cancel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, out, _ := handleRig()
			c.handle([]byte(`{"id":0,"method":"item/commandExecution/requestApproval","params":{"itemId":"call_1","command":"/bin/bash -lc 'rm x'","cwd":"/p","commandActions":[{"type":"unknown","command":"rm x"}],"availableDecisions":` + tc.offer + `}}`))
			req, ok := c.queue.Queued()[0].(engine.ApprovalRequest)
			if !ok || req.RequestID != "0" || req.Kind != engine.RequestCommand {
				t.Fatalf("event = %#v", c.queue.Queued())
			}
			if err := tc.do(c, req.RequestID); err != nil {
				t.Fatal(err)
			}
			want := `{"jsonrpc":"2.0","id":0,"result":{"decision":"` + tc.want + `"}}`
			if got := strings.TrimSpace(out.String()); got != want {
				t.Errorf("answer %s, want %s", got, want)
			}
		})
	}
}
