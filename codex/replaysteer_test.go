package codex

import (
	"slices"
	"testing"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
)

// A message steered into the turn before a restart (turn/steer in the
// journal) is followed again by the re-attached Conn: the bot still holds
// it marked steered and waits for Codex to say what became of it. Taken in
// the replay (its userMessage's clientId), it is reported started; the
// turn ending without taking it reports it dropped before TurnCompleted,
// so the bot runs it as an ordinary message instead of waiting for a run
// Codex never makes (Codex does not run a steered message on its own).
func TestReplayFollowsSteeredMessages(t *testing.T) {
	rec := func(seq uint64, in bool, line string) hold.Frame {
		k := byte('o')
		if in {
			k = 'i'
		}
		return hold.Frame{Kind: k, Record: hold.Record{Seq: seq, In: in, Line: []byte(line)}}
	}
	start := []hold.Frame{
		rec(5, true, `{"jsonrpc":"2.0","id":3,"method":"turn/start","params":{"threadId":"th","input":[]}}`),
		rec(6, false, `{"id":3,"result":{"turn":{"id":"tu","status":"inProgress"}}}`),
		rec(7, false, `{"method":"turn/started","params":{"threadId":"th","turn":{"id":"tu"}}}`),
		rec(8, true, `{"jsonrpc":"2.0","id":4,"method":"turn/steer","params":{"threadId":"th","expectedTurnId":"tu","clientUserMessageId":"s-taken","input":[]}}`),
		rec(9, false, `{"id":4,"result":{"turnId":"tu"}}`),
		rec(10, true, `{"jsonrpc":"2.0","id":5,"method":"turn/steer","params":{"threadId":"th","expectedTurnId":"tu","clientUserMessageId":"s-dropped","input":[]}}`),
		rec(11, false, `{"id":5,"result":{"turnId":"tu"}}`),
		rec(12, false, `{"method":"item/started","params":{"turnId":"tu","item":{"type":"userMessage","id":"u1","clientId":"s-taken"}}}`),
	}
	states := func(c *Conn) []string {
		var got []string
		for _, ev := range c.queue.Queued() {
			switch e := ev.(type) {
			case engine.PromptState:
				got = append(got, e.ID+" "+map[engine.PromptStage]string{engine.PromptStarted: "started", engine.PromptCancelled: "dropped"}[e.Stage])
			case engine.TurnCompleted:
				got = append(got, "completed")
			}
		}
		return got
	}
	rig := func() *Conn {
		c, _, _ := handleRig()
		c.thread = "th"
		c.held = &heldWire{Link: hold.NewLink(&hold.Client{Welcome: hold.Welcome{First: 1}}, nil), from: 5}
		return c
	}

	// The turn ended in the replay (while no bot listened).
	c := rig()
	c.replay(append(slices.Clone(start), rec(13, false, `{"method":"turn/completed","params":{"threadId":"th","turn":{"id":"tu","status":"completed"}}}`)), false)
	if got, want := states(c), []string{"s-taken started", "s-dropped dropped", "completed"}; !slices.Equal(got, want) {
		t.Errorf("replay with the turn's end: %q, want %q", got, want)
	}

	// The turn goes on after the replay: its end comes live.
	c = rig()
	c.replay(start, false)
	c.handle([]byte(`{"method":"turn/completed","params":{"threadId":"th","turn":{"id":"tu","status":"completed"}}}`))
	if got, want := states(c), []string{"s-taken started", "s-dropped dropped", "completed"}; !slices.Equal(got, want) {
		t.Errorf("replay, then the turn's end: %q, want %q", got, want)
	}
}

// The replay names the messages steered into the turn whose turn/steer it
// holds, so that the bot stops following one whose line never reached the
// holder (written while the link was down, dropped by the bot's stop): that
// one runs as an ordinary message instead of waiting for a run that never
// comes.
func TestReplayNamesTheSteeredLinesItHolds(t *testing.T) {
	c, _, _ := handleRig()
	c.thread = "th"
	c.held = &heldWire{Link: hold.NewLink(&hold.Client{Welcome: hold.Welcome{First: 1}}, nil), from: 5}
	in := func(seq uint64, line string) hold.Frame {
		return hold.Frame{Kind: 'i', Record: hold.Record{Seq: seq, In: true, Line: []byte(line)}}
	}
	c.replay([]hold.Frame{
		in(5, `{"jsonrpc":"2.0","id":3,"method":"turn/start","params":{"threadId":"th","input":[]}}`),
		in(6, `{"jsonrpc":"2.0","id":4,"method":"turn/steer","params":{"threadId":"th","expectedTurnId":"tu","clientUserMessageId":"s1","input":[]}}`),
	}, false)
	var got *engine.Replayed
	for _, ev := range c.queue.Queued() {
		if e, ok := ev.(engine.Replayed); ok {
			got = &e
		}
	}
	if got == nil || got.Prompts != 1 || !slices.Equal(got.Steered, []string{"s1"}) {
		t.Errorf("Replayed = %+v, want 1 prompt and steered [s1]", got)
	}
}
