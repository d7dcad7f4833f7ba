package runner

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
	"github.com/untether/untether/runner/claudetest"
)

// heldOnHost makes an SSH rig's sessions durable as the bot does on a
// host: the holder is the agent binary there, its folder in the agent's,
// and it is reached through a bridge over the connection.
func (r *rig) heldOnHost() *rig {
	r.t.Helper()
	h := r.opts.Host.(interface {
		AgentPath(context.Context) (string, error)
	})
	r.opts.Hold = &Hold{Bridge: true, Placement: hold.Placement{Orphan: time.Minute, Place: func(ctx context.Context) (string, string, error) {
		agent, err := h.AgentPath(ctx)
		return agent, path.Dir(agent) + "/hold", err
	}}}
	return r
}

// parentCmdline is the command line of pid's parent ("" when not known).
func parentCmdline(t *testing.T, pid int) string {
	t.Helper()
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	cmdline, _ := os.ReadFile("/proc/" + fields[1] + "/cmdline")
	return strings.ReplaceAll(string(cmdline), "\x00", " ")
}

// The SSH connection dies mid-answer (its master is told to exit): Claude
// goes on under its holder on the host, the session reaches it again over
// a new connection and reads on. The answer comes whole and once, the
// model was asked once, and the session goes on.
func TestContractSSHHeldSurvivesADroppedConnection(t *testing.T) {
	const answer = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"
	r := newSSHRig(t).heldOnHost()
	r.serve(claudetest.Say(answer).Slow(60*time.Millisecond), claudetest.Say("second"))
	s := r.startHeld(func(o *Options) { o.IncludePartial = true })
	pid := s.Pid()
	// The holder is no child of the agent's session (Config.Detach): that
	// session ended once it was ready (the test's sshd is this machine).
	var h hold.Handle
	if err := json.Unmarshal([]byte(s.HoldHandle()), &h); err != nil {
		t.Fatal(err)
	}
	if parent := parentCmdline(t, h.Holder); strings.Contains(parent, "host-agent") {
		t.Errorf("the holder's parent is %q: the agent's session waits for it", parent)
	}
	if err := s.Send(ctxFor(t), "Say the Greek letters."); err != nil {
		t.Fatal(err)
	}
	first := next[engine.Text](t, s)
	dropped := time.Now()
	r.ssh.Close() // the agent session and the multiplexed connection end
	log := runTurn(t, s, nil)
	took := time.Since(dropped)
	streamed := log.streamedAfter(first)
	if !log.done.OK || log.done.Result != answer {
		t.Errorf("the turn after the drop = %+v:%s", log.done, log)
	}
	if got := streamed; got != answer {
		t.Errorf("streamed %q, want the answer once", got)
	}
	if n := len(r.api.Requests()); n != 1 {
		t.Errorf("the model got %d requests, want 1", n)
	}
	if s.Pid() != pid {
		t.Errorf("claude's pid %d, was %d", s.Pid(), pid)
	}
	t.Logf("the answer's end %v after the drop", took.Round(time.Millisecond))
	if again := turn(t, s, "Again.", nil); again.done.Result != "second" {
		t.Errorf("next turn = %+v", again.done)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}
