package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/untether/untether/engine"
)

// A user-input request (the shape measured with Codex 0.171.0) is the
// engine's question request; the bot's answers go back by question id,
// and a dismissal answers every question with nothing.
func TestUserInputRequestMapsToQuestions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(*Conn, string) error
		want   string
	}{
		{"answered", func(c *Conn, id string) error {
			return c.Allow(context.Background(), id, json.RawMessage(`{"questions":[],"answers":{"Which color?":"Blue","Size?":"L"}}`), nil)
		}, `{"answers":{"color":{"answers":["Blue"]},"size":{"answers":["L"]}}}`},
		{"dismissed", func(c *Conn, id string) error { return c.Deny(context.Background(), id, "dismissed", false) },
			`{"answers":{"color":{"answers":[]},"size":{"answers":[]}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, out, _ := handleRig()
			c.handle([]byte(`{"method":"item/tool/requestUserInput","id":4,"params":{"threadId":"th","turnId":"tu","itemId":"call_1","isBlocking":true,` +
				`"questions":[{"id":"color","header":"Color","question":"Which color?","isOther":false,"isSecret":false,` +
				`"options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cool"}]},` +
				`{"id":"size","header":"Size","question":"Size?","options":null}]}}`))
			evs := c.queue.Queued()
			req, ok := evs[0].(engine.ApprovalRequest)
			if len(evs) != 1 || !ok || req.Kind != engine.RequestQuestion || req.RequestID != "4" {
				t.Fatalf("events = %#v", evs)
			}
			want := `{"questions":[{"question":"Which color?","header":"Color","options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cool"}]},` +
				`{"question":"Size?","header":"Size","options":[]}]}`
			if string(req.Input) != want {
				t.Errorf("input = %s\nwant    %s", req.Input, want)
			}
			if err := tc.answer(c, req.RequestID); err != nil {
				t.Fatal(err)
			}
			var m message
			if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &m); err != nil || string(m.ID) != "4" || string(m.Result) != tc.want {
				t.Errorf("written %s (%v), want the result %s", out.Bytes(), err, tc.want)
			}
		})
	}
}
