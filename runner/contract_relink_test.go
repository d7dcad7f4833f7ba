package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
	"github.com/untether/untether/host"
	"github.com/untether/untether/runner/claudetest"
)

// bridgeHost is this machine as a host whose holders are reached through
// bridges (as on an SSH host), with a way to drop their connections: it
// keeps the bridges it started.
type bridgeHost struct {
	host.Local
	mu      sync.Mutex
	bridges []host.Process
	down    bool // bridges do not start: the host is unreachable
}

func (b *bridgeHost) Start(ctx context.Context, c host.Cmd) (host.Process, error) {
	b.mu.Lock()
	down := b.down
	b.mu.Unlock()
	if down && len(c.Args) == 2 && c.Args[1] == hold.BridgeArg {
		return nil, fmt.Errorf("ssh: connect: %w", host.ErrUnreachable)
	}
	p, err := b.Local.Start(ctx, c)
	if err == nil && len(c.Args) == 2 && c.Args[0] == "hold" && c.Args[1] == hold.BridgeArg {
		b.mu.Lock()
		b.bridges = append(b.bridges, p)
		b.mu.Unlock()
	}
	return p, err
}

// drop kills the bridges: the connection to the holder is gone; with
// down, it does not come back until setDown(false).
func (b *bridgeHost) drop() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.bridges {
		_ = p.Signal(syscall.SIGKILL)
	}
	n := len(b.bridges)
	b.bridges = nil
	return n
}

// bridged is a rig whose sessions are held and reached through bridges
// on bh (this machine, as if another).
func bridged(t *testing.T, parallel bool, steps ...claudetest.Step) (*rig, *bridgeHost) {
	t.Helper()
	r := newRig(t, parallel).held().serve(steps...)
	bh := &bridgeHost{}
	r.opts.Host = bh
	r.opts.Hold.Bridge = true
	return r, bh
}

func (b *bridgeHost) setDown(down bool) {
	b.mu.Lock()
	b.down = down
	b.mu.Unlock()
}

// The connection to a bridged holder drops mid-answer (the ssh connection
// of a host died): the session reaches the holder again by itself, reads
// on from the last record it had, and the turn ends as if nothing
// happened — the answer whole and once, one model request, the same CLI.
func TestContractHeldBridgeRelinksMidAnswer(t *testing.T) {
	const answer = "one two three four five six seven eight nine ten eleven twelve"
	r, bh := bridged(t, true, claudetest.Say(answer).Slow(40*time.Millisecond), claudetest.Say("second"))
	s := r.startHeld(func(o *Options) { o.IncludePartial = true })
	pid := s.Pid()
	if err := s.Send(ctxFor(t), "Count to twelve."); err != nil {
		t.Fatal(err)
	}
	first := next[engine.Text](t, s)
	if n := bh.drop(); n != 1 {
		t.Fatalf("%d bridges running, want 1", n)
	}
	log := runTurn(t, s, nil)
	streamed := log.streamedAfter(first)
	if !log.done.OK || log.done.Result != answer {
		t.Errorf("the turn after the connection dropped = %+v:%s", log.done, log)
	}
	if got := streamed; got != answer {
		t.Errorf("streamed %q, want the answer once: %q", got, answer)
	}
	if n := len(eventsOf[engine.Exited](log.events)); n != 0 {
		t.Errorf("the session reported an exit:%s", log)
	}
	if n := len(r.api.Requests()); n != 1 {
		t.Errorf("the model got %d requests, want 1", n)
	}
	if s.Pid() != pid {
		t.Errorf("claude's pid %d, was %d", s.Pid(), pid)
	}
	// The link goes on: the next turn, through the new bridge.
	if again := turn(t, s, "Again.", nil); again.done.Result != "second" {
		t.Errorf("next turn = %+v", again.done)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// The connection drops just as the user answers an approval: the answer
// is written once the holder is reached again (resent with its input id,
// so it is written once), the tool runs once and the turn ends; the
// request is not asked again.
func TestContractHeldBridgeAllowAcrossADrop(t *testing.T) {
	r, bh := bridged(t, true, claudetest.Answer(bashUse("echo x >> a.txt")), claudetest.Say("made it"))
	s := r.startHeld()
	if err := s.Send(ctxFor(t), "Append to a.txt."); err != nil {
		t.Fatal(err)
	}
	asked := 0
	log := runTurn(t, s, func(req engine.ApprovalRequest) {
		asked++
		bh.drop() // the answer meets a dropped connection
		if err := s.Allow(ctxFor(t), req.RequestID, nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	if asked != 1 || !log.done.OK || log.done.Result != "made it" {
		t.Fatalf("asked %d times, turn %+v:%s", asked, log.done, log)
	}
	if got, err := os.ReadFile(r.path("a.txt")); err != nil || string(got) != "x\n" {
		t.Errorf("a.txt = %q, %v; want the command run once", got, err)
	}
	if n := len(r.api.Requests()); n != 2 {
		t.Errorf("the model got %d requests, want 2", n)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Closing a bridged session (/new, idle close) while its host does not
// answer does not wait for the host: one try, then the session ends (its
// holder ends Claude after its orphan time). When the host answers that
// try, Claude is closed as always and its holder's files go.
func TestContractHeldBridgeCloseWhileDown(t *testing.T) {
	for _, down := range []bool{true, false} {
		r, bh := bridged(t, false, claudetest.Say("hi"))
		s := r.startHeld()
		if got := turn(t, s, "Hello.", nil); got.done.Result != "hi" {
			t.Fatalf("turn = %+v", got.done)
		}
		bh.setDown(down)
		bh.drop()
		begin := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := s.Close(ctx)
		cancel()
		if took := time.Since(begin); err != nil || took > 45*time.Second {
			t.Fatalf("host down %v: Close = %v after %v", down, err, took)
		}
		if !down {
			holderFilesGone(t, r) // closed over a new connection
		}
	}
}

// A bridged holder that dies (killed on its host) ends the session once
// its bridge says so: an Exited with the error, no endless relinking.
func TestContractHeldBridgeHolderGone(t *testing.T) {
	r, _ := bridged(t, false, claudetest.Say("hi").HangAfter(2))
	s := r.startHeld(func(o *Options) { o.IncludePartial = true })
	if err := s.Send(ctxFor(t), "Hello."); err != nil {
		t.Fatal(err)
	}
	next[engine.Text](t, s)
	var h hold.Handle
	if err := json.Unmarshal([]byte(s.HoldHandle()), &h); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(h.Holder, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ex := next[engine.Exited](t, s)
	if ex.Err == nil || !errors.Is(ex.Err, hold.ErrGone) {
		t.Errorf("exit after the holder died = %+v, want one saying the holder is gone", ex)
	}
}

// streamedAfter is the text a turn streamed, first (read before the turn's
// log began) and its partial texts after: each part once, in order.
func (l turnLog) streamedAfter(first engine.Text) string {
	var b strings.Builder
	b.WriteString(first.Text)
	for _, e := range eventsOf[engine.Text](l.events) {
		if e.Partial {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}
