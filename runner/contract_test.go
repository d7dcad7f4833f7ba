package runner

// Contract tests: the runner driving the real Claude Code CLI (the binary
// named by UNTETHER_TEST_CLAUDE, see .ci/install-claude.sh) against the fake
// Messages API of claudetest. They pin down every protocol fact the runner
// relies on; docs/protocol.md explains them. Without the variable they skip.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/engine"

	"github.com/untether/untether/runner/claudetest"
)

// contractWait bounds every wait on the real CLI. A turn against the fake
// API takes well under a second (6 s under stress-ng on 2 cores): this
// bound is a hang's, not a speed goal.
const contractWait = hangBound

// rig is one test's isolated world: its own fake API, HOME and working dir.
type rig struct {
	t    testing.TB
	api  *claudetest.API
	home string
	opts Options
	// served, if set, adjusts the options once the fake API runs (a rig
	// on an SSH host moves HOME there).
	served func(*rig)
	// ssh is the rig's SSH host, when it has one.
	ssh interface{ Close() error }
}

// newRig skips without a binary, marks a *testing.T parallel (each rig is
// isolated) and prepares the working dir. serve must be called before start.
func newRig(tb testing.TB, parallel bool) *rig {
	tb.Helper()
	bin := claudetest.Binary(tb)
	if t, ok := tb.(*testing.T); ok && parallel {
		t.Parallel()
	}
	return &rig{t: tb, opts: Options{
		Binary:  bin,
		WorkDir: tb.TempDir(),
		// claudetest.Env carries a fake ANTHROPIC_API_KEY. Without API
		// billing the runner strips that key (TestContractKeyStrippedWithoutAPIBilling),
		// and a CLI with a fresh HOME has no other credentials.
		UseAPIBilling:  true,
		CloseGrace:     2 * time.Second,
		TermGrace:      time.Second,
		ControlTimeout: 10 * time.Second,
	}}
}

// serve starts the fake API with the script and points the CLI at it.
func (r *rig) serve(steps ...claudetest.Step) *rig {
	r.t.Helper()
	r.api = claudetest.NewAPI(r.t, steps...)
	r.opts.Env, r.home = claudetest.Env(r.t, r.api.URL())
	if r.served != nil {
		r.served(r)
	}
	return r
}

func (r *rig) path(name string) string { return filepath.Join(r.opts.WorkDir, name) }

// start launches an interactive session, closed when the test ends.
func (r *rig) start(mut ...func(*Options)) *Session {
	r.t.Helper()
	opts := r.opts
	for _, m := range mut {
		m(&opts)
	}
	s, err := Start(context.Background(), opts)
	if err != nil {
		r.t.Fatalf("start claude: %v", err)
	}
	r.cleanup(s)
	return s
}

func (r *rig) cleanup(s *Session) {
	r.t.Cleanup(func() {
		_ = s.Close(context.Background())
		for range s.Events() {
		}
		if r.t.Failed() {
			r.t.Logf("claude stderr tail:\n%s", s.StderrTail())
		}
	})
}

// turnLog is everything one turn produced, ending with its result.
type turnLog struct {
	events []engine.Event
	done   engine.TurnCompleted
}

func (l turnLog) String() string {
	var b strings.Builder
	for _, ev := range l.events {
		fmt.Fprintf(&b, "\n  %T %+v", ev, ev)
	}
	return b.String()
}

// eventsOf filters events by type.
func eventsOf[T engine.Event](evs []engine.Event) []T {
	var out []T
	for _, ev := range evs {
		if e, ok := ev.(T); ok {
			out = append(out, e)
		}
	}
	return out
}

// runTurn reads events up to the turn's TurnCompleted. onApproval must answer
// each ApprovalRequest; nil means the turn must not ask anything.
func runTurn(tb testing.TB, s *Session, onApproval func(engine.ApprovalRequest)) turnLog {
	tb.Helper()
	timeout := time.NewTimer(contractWait)
	defer timeout.Stop()
	var log turnLog
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				tb.Fatalf("events closed mid-turn:%s", log)
			}
			log.events = append(log.events, ev)
			switch e := ev.(type) {
			case engine.ApprovalRequest:
				if onApproval == nil {
					tb.Fatalf("unexpected approval request %+v", e)
				}
				onApproval(e)
			case engine.TurnCompleted:
				log.done = e
				return log
			case engine.Exited:
				tb.Fatalf("claude exited mid-turn: %+v\nevents:%s", e, log)
			}
		case <-timeout.C:
			tb.Fatalf("no TurnCompleted within %v; events:%s", contractWait, log)
		}
	}
}

// turn sends prompt and runs the turn it starts.
func turn(tb testing.TB, s *Session, prompt string, onApproval func(engine.ApprovalRequest)) turnLog {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), contractWait)
	defer cancel()
	if err := s.Send(ctx, prompt); err != nil {
		tb.Fatalf("send %q: %v", prompt, err)
	}
	return runTurn(tb, s, onApproval)
}

func ctxFor(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), contractWait)
	tb.Cleanup(cancel)
	return ctx
}

// lastRequest is the newest Messages API request the CLI made.
func (r *rig) lastRequest() *claudetest.Request {
	r.t.Helper()
	reqs := r.api.Requests()
	if len(reqs) == 0 {
		r.t.Fatal("the CLI made no API request")
	}
	return &reqs[len(reqs)-1]
}

func pinnedVersion(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join("..", ".ci", "claude-code.version"))
	if err != nil {
		t.Fatalf("read the version pin: %v", err)
	}
	return strings.TrimSpace(string(b))
}

func TestContractPlainAnswer(t *testing.T) {
	const answer = "Hello from the scripted model."
	r := newRig(t, true).serve(claudetest.Say(answer))
	started := time.Now()
	s := r.start()
	if s.SessionID() != "" {
		t.Errorf("session id before the first turn = %q, want empty (init comes with the first turn)", s.SessionID())
	}
	if err := s.Send(ctxFor(t), "Say hello."); err != nil {
		t.Fatal(err)
	}
	first, _ := recvEvent(t, s)
	t.Logf("start to first event (%T): %v", first, time.Since(started))
	log := runTurn(t, s, nil)
	log.events = append([]engine.Event{first}, log.events...)
	t.Logf("start to result: %v", time.Since(started))

	inits := eventsOf[engine.SessionStarted](log.events)
	if len(inits) != 1 {
		t.Fatalf("want one SessionStarted in the turn:%s", log)
	}
	init := inits[0]
	wantCwd, _ := filepath.EvalSymlinks(r.opts.WorkDir)
	gotCwd, _ := filepath.EvalSymlinks(init.Cwd)
	if init.SessionID == "" || gotCwd != wantCwd || init.PermissionMode != "default" || init.Model == "" {
		t.Errorf("SessionStarted = %+v, want a session id, cwd %s, mode default", init, wantCwd)
	}
	if init.Version != pinnedVersion(t) {
		t.Logf("note: the CLI reports version %q, the pin is %q", init.Version, pinnedVersion(t))
	}
	// With --permission-prompt-tool stdio the interactive tools are offered.
	for _, tool := range []string{"AskUserQuestion", "ExitPlanMode", "Bash", "Write"} {
		if !contains(init.Tools, tool) {
			t.Errorf("tools lack %s: %v", tool, init.Tools)
		}
	}
	texts := eventsOf[engine.Text](log.events)
	if len(texts) != 1 || texts[0].Text != answer || texts[0].Partial || texts[0].MessageID == "" {
		t.Errorf("text events = %+v", texts)
	}
	tc := log.done
	if !tc.OK || tc.Outcome != engine.OutcomeDone || tc.Result != answer || tc.Reason != "success/completed" || tc.ErrorText != "" {
		t.Errorf("turn = %+v", tc)
	}
	if tc.NumTurns != 1 || tc.SessionCostUSD <= 0 || tc.Usage.InputTokens <= 0 || tc.Usage.OutputTokens <= 0 || tc.Duration <= 0 {
		t.Errorf("turn accounting = turns %d cost %v usage %+v duration %v", tc.NumTurns, tc.SessionCostUSD, tc.Usage, tc.Duration)
	}
	if tc.SessionID != init.SessionID || s.SessionID() != init.SessionID {
		t.Errorf("session ids: init %q, result %q, SessionID() %q", init.SessionID, tc.SessionID, s.SessionID())
	}
	req := r.lastRequest()
	if texts := req.UserTexts(); len(texts) == 0 || texts[len(texts)-1] != "Say hello." {
		t.Errorf("the model was sent %q", texts)
	}
	if n := len(r.api.Requests()); n != 1 {
		t.Errorf("%d API requests, want 1", n)
	}
	if other := r.api.OtherRequests(); len(other) != 0 {
		t.Errorf("the CLI made other requests: %q", other)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestContractTwoTurnsOneProcess(t *testing.T) {
	r := newRig(t, true).serve(claudetest.Say("first answer"), claudetest.Say("second answer"))
	s := r.start()
	first := turn(t, s, "first question", nil)
	pid := s.Pid()
	sent := time.Now()
	if err := s.Send(ctxFor(t), "second question"); err != nil {
		t.Fatal(err)
	}
	second := runTurn(t, s, nil)
	t.Logf("warm second turn: send to result %v", time.Since(sent))
	if first.done.Result != "first answer" || second.done.Result != "second answer" || !second.done.OK {
		t.Fatalf("results %q, %q", first.done.Result, second.done.Result)
	}
	select {
	case <-s.Done():
		t.Fatal("the process ended between turns")
	default:
	}
	if s.Pid() != pid {
		t.Errorf("pid changed from %d to %d", pid, s.Pid())
	}
	// system/init comes again at every turn, with the same session.
	a, b := eventsOf[engine.SessionStarted](first.events), eventsOf[engine.SessionStarted](second.events)
	if len(a) != 1 || len(b) != 1 || a[0].SessionID != b[0].SessionID || a[0].SessionID == "" {
		t.Errorf("SessionStarted per turn: %+v / %+v", a, b)
	}
	req := r.lastRequest()
	if req.AssistantTurns() != 1 {
		t.Errorf("second request carries %d assistant messages, want 1", req.AssistantTurns())
	}
	all := req.AllText()
	for _, want := range []string{"first question", "first answer", "second question"} {
		if !strings.Contains(all, want) {
			t.Errorf("the second request lacks %q", want)
		}
	}
}

func TestContractCloseAndResume(t *testing.T) {
	r := newRig(t, true).serve(claudetest.Say("noted"), claudetest.Say("it was pineapple"))
	s1 := r.start()
	turn(t, s1, "Remember the word pineapple.", nil)
	id := s1.SessionID()
	if id == "" {
		t.Fatal("no session id after the first turn")
	}
	if err := s1.Close(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	if ex := waitExit(t, s1); ex.ExitCode != 0 || ex.Err != nil {
		t.Fatalf("first process exit = %+v", ex)
	}

	resumed := time.Now()
	s2 := r.start(func(o *Options) { o.Resume = id })
	if s2.Pid() == s1.Pid() {
		t.Error("resume reused the pid of the closed process")
	}
	if s2.SessionID() != id {
		t.Errorf("resumed SessionID() before the turn = %q, want %q", s2.SessionID(), id)
	}
	log := turn(t, s2, "What was the word?", nil)
	t.Logf("resume: start to result %v", time.Since(resumed))
	if !log.done.OK || log.done.Result != "it was pineapple" || log.done.SessionID != id || s2.SessionID() != id {
		t.Errorf("resumed turn = %+v (session %q, want %q)", log.done, s2.SessionID(), id)
	}
	if st := eventsOf[engine.SessionStarted](log.events); len(st) != 1 || st[0].SessionID != id {
		t.Errorf("resumed SessionStarted = %+v, want session %s", st, id)
	}
	all := r.lastRequest().AllText()
	for _, want := range []string{"Remember the word pineapple.", "noted", "What was the word?"} {
		if !strings.Contains(all, want) {
			t.Errorf("the resumed request lacks %q", want)
		}
	}
}

func TestContractAPIErrorThenRecovery(t *testing.T) {
	const msg = "fake: the request was rejected by the test"
	// The CLI sends a 400 six times, then gives up on the turn.
	r := newRig(t, true).serve(claudetest.Err(400, msg).Times(6), claudetest.Say("recovered"))
	s := r.start()
	log := turn(t, s, "Fail please.", nil)
	tc := log.done
	t.Logf("API error turn: reason %q, error text %q", tc.Reason, tc.ErrorText)
	if tc.OK || tc.Outcome != engine.OutcomeFailed || !strings.Contains(tc.ErrorText, msg) || !saidReason(tc, "api_error") {
		t.Errorf("failed turn = %+v", tc)
	}
	// Measured: the CLI reports the failure as subtype "success" with
	// is_error, so OK must not be derived from the subtype alone.
	if !saidReason(tc, "success") {
		t.Errorf("API error reason = %q, want subtype success (with is_error)", tc.Reason)
	}
	if n := len(r.api.Requests()); n != 6 {
		t.Errorf("the CLI sent %d requests for a 400, want 6", n)
	}
	if next := turn(t, s, "Again.", nil); !next.done.OK || next.done.Result != "recovered" {
		t.Errorf("turn after the error = %+v", next.done)
	}
}

func TestContractOneShot(t *testing.T) {
	r := newRig(t, true).serve(claudetest.Say("one-shot answer"), claudetest.Say("second one-shot answer"))
	oneShot := func(prompt, resume string) (turnLog, time.Duration) {
		t.Helper()
		opts := r.opts
		opts.Resume = resume
		began := time.Now()
		s, err := StartOneShot(context.Background(), opts, prompt)
		if err != nil {
			t.Fatal(err)
		}
		r.cleanup(s)
		log := runTurn(t, s, nil)
		took := time.Since(began)
		if err := s.Send(context.Background(), "x"); !errors.Is(err, ErrNoControl) {
			t.Errorf("Send in one-shot mode: %v, want ErrNoControl", err)
		}
		ex := waitExit(t, s)
		if ex.ExitCode != 0 || ex.MidTurn || ex.Err != nil {
			t.Errorf("one-shot exit = %+v", ex)
		}
		// With a PTY the CLI does not wait for stdin (with a pipe it
		// warns and stalls 3 s: TestContractOneShotPipeStalls).
		if strings.Contains(ex.StderrTail, "no stdin data received") {
			t.Errorf("the one-shot run waited for stdin: %q", ex.StderrTail)
		}
		return log, took
	}
	first, took := oneShot("Answer once.", "")
	// A pipe on stdin would stall 3 s here; the PTY must not. Not asserted
	// tightly (timing on a shared machine), only against a hang.
	t.Logf("one-shot start to result: %v", took)
	if took > hangBound {
		t.Errorf("one-shot took %v", took)
	}
	if !first.done.OK || first.done.Result != "one-shot answer" || first.done.SessionID == "" {
		t.Fatalf("one-shot turn = %+v", first.done)
	}
	second, took := oneShot("And again.", first.done.SessionID)
	t.Logf("one-shot resume start to result: %v", took)
	if second.done.Result != "second one-shot answer" || second.done.SessionID != first.done.SessionID {
		t.Errorf("resumed one-shot turn = %+v", second.done)
	}
	if all := r.lastRequest().AllText(); !strings.Contains(all, "Answer once.") || !strings.Contains(all, "one-shot answer") {
		t.Error("the resumed one-shot request lacks the first exchange")
	}
}

// Not parallel: it counts goroutines of the whole test binary.
func TestContractCloseExitsCleanly(t *testing.T) {
	r := newRig(t, false).serve(claudetest.Say("bye"))
	before := runtime.NumGoroutine()
	opts := r.opts
	// SIGTERM only after a hang's time: a Close under CloseGrace is the
	// CLI leaving on stdin's end, however slow the machine.
	opts.CloseGrace = hangBound
	s, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	turn(t, s, "Hi.", nil)
	pid := s.Pid()
	began := time.Now()
	if err := s.Close(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	closed := time.Since(began)
	t.Logf("Close (stdin EOF to exit): %v", closed)
	ex := waitExit(t, s)
	// Exit on stdin EOF alone: no signal, status 0, well inside CloseGrace.
	if ex.ExitCode != 0 || ex.Signal != "" || ex.MidTurn || ex.Err != nil {
		t.Errorf("exit = %+v", ex)
	}
	if closed >= opts.CloseGrace {
		t.Errorf("Close took %v: the CLI did not exit on stdin EOF before SIGTERM", closed)
	}
	for range s.Events() {
	}
	if n := liveInGroup(pid); n > 0 {
		t.Errorf("%d processes of claude's group still alive", n)
	}
	if err := s.Send(context.Background(), "late"); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("Send after Close: %v, want engine.ErrClosed", err)
	}
	deadline := time.Now().Add(hangBound)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: before %d after %d\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// Without API billing the runner must keep the key from the CLI: the CLI
// then has no credentials and never reaches the API.
func TestContractKeyStrippedWithoutAPIBilling(t *testing.T) {
	r := newRig(t, true).serve(claudetest.Say("must not be reached"))
	s := r.start(func(o *Options) { o.UseAPIBilling = false })
	if err := s.Send(ctxFor(t), "Hi."); err != nil {
		t.Fatal(err)
	}
	log := runTurn(t, s, nil)
	t.Logf("without a key: %+v", log.done)
	// Measured: a turn-shaped failure, not an exit, with the CLI's own hint.
	if log.done.OK || !saidReason(log.done, "api_error") || !strings.Contains(log.done.ErrorText, "Not logged in") {
		t.Errorf("turn without credentials = %+v", log.done)
	}
	if n := len(r.api.Requests()); n != 0 {
		t.Errorf("the CLI reached the API %d times without a key", n)
	}
	// At stdin EOF the exit status reflects the last result.
	if err := s.Close(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	if ex := waitExit(t, s); ex.ExitCode != 1 || ex.MidTurn {
		t.Errorf("exit after a failed turn = %+v, want status 1", ex)
	}
}
