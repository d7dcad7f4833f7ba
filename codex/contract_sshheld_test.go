package codex_test

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/codex"
	"github.com/untether/untether/codex/codextest"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
	sshhost "github.com/untether/untether/host/ssh"
	"github.com/untether/untether/host/ssh/sshtest"
)

// sshHeldRig is a rig whose Codex runs on the SSH test server, held there
// as the bot holds it on a host: the holder is the agent binary there
// (this test binary), its folder in the agent's, reached through a bridge
// over the connection. Skipped without sshd (UNTETHER_TEST_SSHD) and
// UNTETHER_TEST_CODEX.
func sshHeldRig(t *testing.T, respond codextest.Responder) (*rig, *sshhost.Host) {
	t.Helper()
	bin := codexBinary(t)
	s := sshtest.Start(t)
	h := s.Connect(t)
	api := codextest.New(t, respond)
	on := api.OnHost(t, s, bin)
	place := func(ctx context.Context) (string, string, error) {
		agent, err := h.AgentPath(ctx)
		return agent, path.Dir(agent) + "/hold", err
	}
	return &rig{api: api, home: on.Home, dir: on.Work, eng: &codex.Engine{Base: codex.Options{
		Binary:   on.Binary,
		WorkDir:  on.Work,
		Env:      []string{}, // the host's login environment applies there
		ExtraEnv: []string{"CODEX_HOME=" + on.Home},
		Host:     h,
		Hold:     &codex.Hold{Bridge: true, Placement: hold.Placement{Orphan: time.Minute, Place: place}},
	}}}, h
}

// slowCount answers "Count…" with a long text in two parts, the second
// after a pause (the connection drops between them); anything else as
// DefaultResponder does.
func slowCount(r codextest.Request) codextest.Reply {
	if strings.HasPrefix(r.LastUserText(), "Count") {
		return codextest.Reply{Text: "Counted: " + strings.Repeat("lorem ipsum ", 20) + "the end.", Pause: 3 * time.Second}
	}
	return codextest.DefaultResponder(r)
}

// The SSH connection to the host dies mid-answer (its master is told to
// exit): Codex goes on under its holder there, the session reaches it
// again over a new connection and reads on from the last record it had.
// The answer comes whole and once, the model was asked once, the same
// Codex goes on. Then the connection dies while an approval is pending:
// the phone's answer, written during the gap, waits for the new
// connection, the command runs once, the request is not asked again and
// the turn ends once.
func TestSSHHeldSurvivesADroppedConnection(t *testing.T) {
	r, h := sshHeldRig(t, slowCount)
	c := r.start(t, "")
	pid := codex.PidForTest(c)
	send(t, c, "Count slowly.")
	var seen []engine.Event
	first := next[engine.Text](t, c, &seen)
	if !first.Partial {
		t.Fatalf("first text %+v, want a part of the answer", first)
	}
	_ = h.Close() // the agent session and the multiplexed connection end
	tc := next[engine.TurnCompleted](t, c, &seen)
	const answer = "Counted: lorem ipsum"
	var streamed strings.Builder
	for _, ev := range seen {
		if tx, ok := ev.(engine.Text); ok && tx.Partial {
			streamed.WriteString(tx.Text)
		}
	}
	if tc.Outcome != engine.OutcomeDone || !strings.HasPrefix(tc.Result, answer) || !strings.HasSuffix(tc.Result, "the end.") {
		t.Errorf("the turn after the drop = %+v", tc)
	}
	if streamed.String() != tc.Result {
		t.Errorf("streamed %q, want the answer once: %q", streamed.String(), tc.Result)
	}
	if n := len(r.api.Requests()); n != 1 {
		t.Errorf("the model got %d requests, want 1", n)
	}
	if got := codex.PidForTest(c); got != pid {
		t.Errorf("codex's pid %d, was %d", got, pid)
	}

	seen = nil
	send(t, c, "run: echo hi > out.txt")
	req := next[engine.ApprovalRequest](t, c, &seen)
	_ = h.Close() // the answer meets a dropped connection
	if err := c.Allow(context.Background(), req.RequestID, nil, nil); err != nil {
		t.Fatalf("allow across the drop: %v", err)
	}
	tc = next[engine.TurnCompleted](t, c, &seen)
	if tc.Outcome != engine.OutcomeDone || !strings.HasPrefix(tc.Result, "done: ") {
		t.Errorf("the approved turn = %+v", tc)
	}
	if b, err := os.ReadFile(filepath.Join(r.dir, "out.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("out.txt on the host = %q, %v; want the command run once", b, err)
	}
	asked, ended := 0, 0
	for _, ev := range seen {
		switch ev.(type) {
		case engine.ApprovalRequest:
			asked++
		case engine.TurnCompleted:
			ended++
		}
	}
	if asked != 1 || ended != 1 {
		t.Errorf("asked %d times, %d turn ends; want 1 and 1", asked, ended)
	}
	if n := len(r.api.Requests()); n != 3 {
		t.Errorf("the model got %d requests, want 3", n)
	}
	// The link goes on: the next turn, through the new bridge.
	send(t, c, "and now")
	if tc := next[engine.TurnCompleted](t, c, &seen); tc.Result != "echo: and now" {
		t.Errorf("next turn = %+v", tc)
	}
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}
