package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
	"github.com/untether/untether/host"
	sshhost "github.com/untether/untether/host/ssh"

	"github.com/untether/untether/runner/claudetest"
)

func TestMain(m *testing.M) {
	// The test binary is its own holder for held sessions, and the agent of
	// the SSH hosts in contract_ssh_test.go, as untether is in production.
	if len(os.Args) > 1 && os.Args[1] == "hold" {
		os.Exit(hold.Command(os.Args[2:], os.Stdin, os.Stdout))
	}
	if len(os.Args) > 1 && os.Args[1] == "host-agent" {
		os.Exit(sshhost.AgentMain(os.Args[2:]))
	}
	claudetest.RunFakeCLIIfRequested()
	os.Exit(m.Run())
}

// fakeOpts runs this test binary as a scripted fake claude.
func fakeOpts(t testing.TB, script string) Options {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Options{
		Binary:  exe,
		WorkDir: t.TempDir(),
		// The race runtime sleeps 1 s at exit by default; the fake must
		// exit as fast as the real CLI does.
		ExtraEnv:   []string{claudetest.FakeCLIEnvFor(script), "GORACE=atexit_sleep_ms=0"},
		CloseGrace: 300 * time.Millisecond,
		TermGrace:  300 * time.Millisecond,
		// A control answer is waited for as long as a hang takes: the
		// fake's answer is slow on a loaded machine, and the test that
		// wants the timeout (TestControlTimeout) sets its own.
		ControlTimeout: hangBound,
	}
}

func startFake(t *testing.T, script string, mut ...func(*Options)) *Session {
	t.Helper()
	opts := fakeOpts(t, script)
	for _, m := range mut {
		m(&opts)
	}
	s, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.Close(context.Background())
		for range s.Events() {
		}
	})
	return s
}

// hangBound bounds a wait that only a broken test reaches: a hang. It is
// far from what the work costs, also under -race on a loaded 2-core
// machine (a held 20 MiB line took over 10 s there), so no test measures
// the machine's speed with it.
const hangBound = 2 * time.Minute

// next returns the next event of type T, failing on a hang or exit.
func next[T engine.Event](t *testing.T, s *Session) T {
	t.Helper()
	return nextWithin[T](t, s, hangBound)
}

// nextWithin is next with a deadline of d, which only bounds a test that
// fails: a hang.
func nextWithin[T engine.Event](t *testing.T, s *Session, d time.Duration) T {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				t.Fatalf("events closed while waiting for %T", *new(T))
			}
			if e, ok := ev.(T); ok {
				return e
			}
			if ex, ok := ev.(engine.Exited); ok {
				t.Fatalf("process exited while waiting for %T: %+v", *new(T), ex)
			}
		case <-timeout:
			t.Fatalf("timed out waiting for %T", *new(T))
		}
	}
}

func waitExit(t *testing.T, s *Session) engine.Exited {
	t.Helper()
	timeout := time.After(hangBound)
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				t.Fatal("events closed without Exited")
			}
			if ex, ok := ev.(engine.Exited); ok {
				return ex
			}
		case <-timeout:
			t.Fatal("timed out waiting for exit")
		}
	}
}

func TestTwoTurnsOnOneProcess(t *testing.T) {
	// SIGTERM only after a hang's time: Close taking less than CloseGrace
	// means stdin's end ended the CLI, however slow the machine.
	s := startFake(t, "echo", func(o *Options) { o.CloseGrace = hangBound })
	for _, p := range []string{"first", "second"} {
		if err := s.Send(context.Background(), p); err != nil {
			t.Fatal(err)
		}
		st := next[engine.SessionStarted](t, s)
		if st.SessionID != "fake-session-1" || st.Model != "fake-model" {
			t.Errorf("session started = %+v", st)
		}
		tc := next[engine.TurnCompleted](t, s)
		if !tc.OK || tc.Result != "echo: "+p {
			t.Errorf("turn = %+v", tc)
		}
	}
	if s.SessionID() != "fake-session-1" {
		t.Errorf("session id = %q", s.SessionID())
	}
	start := time.Now()
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d >= s.opts.CloseGrace {
		t.Errorf("closing stdin should end the CLI quickly, took %v", d)
	}
	ex := waitExit(t, s)
	if ex.ExitCode != 0 || ex.MidTurn || ex.Err != nil {
		t.Errorf("exit = %+v", ex)
	}
	if err := s.Send(context.Background(), "late"); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("send after close: %v, want engine.ErrClosed", err)
	}
}

// The fake reports the session's running total like the real CLI
// (TestContractCostIsRunningTotal): it grows every turn and continues
// after --resume in a new process.
func TestFakeReportsRunningTotal(t *testing.T) {
	opts := fakeOpts(t, "echo")
	totals := func(s *Session, prompts ...string) []float64 {
		var out []float64
		for _, p := range prompts {
			if err := s.Send(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			out = append(out, next[engine.TurnCompleted](t, s).SessionCostUSD)
		}
		return out
	}
	s := startFake(t, "echo", func(o *Options) { *o = opts })
	got := totals(s, "one", "two")
	_ = s.Close(context.Background())
	waitExit(t, s)
	s = startFake(t, "echo", func(o *Options) { *o = opts; o.Resume = "fake-session-1" })
	got = append(got, totals(s, "three")...)
	want := []float64{0.01, 0.02, 0.03}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("running totals %v, want %v", got, want)
		}
	}
}

// --max-budget-usd counts the process's spend (as the real CLI does,
// TestContractMaxBudget): the turn that reaches it ends with
// error_max_budget_usd, and so does every later turn of the process.
func TestFakeMaxBudget(t *testing.T) {
	s := startFake(t, "echo", func(o *Options) { o.MaxBudgetUSD = 0.02 })
	for i, wantOK := range []bool{true, false, false} {
		if err := s.Send(context.Background(), fmt.Sprint("turn ", i)); err != nil {
			t.Fatal(err)
		}
		tc := next[engine.TurnCompleted](t, s)
		if tc.OK != wantOK || (!wantOK && (tc.Outcome != engine.OutcomeBudgetStop || tc.Reason != "error_max_budget_usd/budget_exhausted" ||
			tc.ErrorText != "Reached maximum budget ($0.02)")) {
			t.Errorf("turn %d = %+v", i, tc)
		}
	}
}

func TestArgsAndEnvironment(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-should-not-pass")
	t.Setenv("CLAUDECODE", "1")
	s := startFake(t, "args", func(o *Options) {
		o.Env = os.Environ()
		o.Model = "opus"
		o.PermissionMode = "plan"
		o.Resume = "abc-123"
		o.AllowedTools = []string{"Read", "Bash(git status:*)"}
		o.AddDirs = []string{"/srv/docs", "/home/me/my notes"}
		o.IncludePartial = true
		o.MaxBudgetUSD = 0.25
		o.MCPConfig = "/state/mcp/s1.json"
		o.ExtraArgs = []string{"--append-system-prompt", "be brief"}
		o.ExtraEnv = append(o.ExtraEnv, "UNTETHER_EXTRA=yes")
	})
	if err := s.Send(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	tc := next[engine.TurnCompleted](t, s)
	var got struct {
		Args  []string        `json:"args"`
		Env   map[string]bool `json:"env"`
		Extra string          `json:"extra"`
	}
	if err := json.Unmarshal([]byte(tc.Result), &got); err != nil {
		t.Fatal(err)
	}
	want := "-p --verbose --output-format stream-json --input-format stream-json --permission-prompt-tool stdio --permission-mode plan --model opus --resume abc-123 --allowedTools Read,Bash(git status:*) --add-dir /srv/docs --add-dir /home/me/my notes --include-partial-messages --max-budget-usd 0.25 --mcp-config /state/mcp/s1.json --ignore-persisted-trust --append-system-prompt be brief"
	if strings.Join(got.Args, " ") != want {
		t.Errorf("args\n got %q\nwant %q", strings.Join(got.Args, " "), want)
	}
	if got.Env["ANTHROPIC_API_KEY"] || got.Env["CLAUDECODE"] || got.Extra != "yes" {
		t.Errorf("env = %+v extra=%q", got.Env, got.Extra)
	}
	if s.SessionID() != "abc-123" {
		t.Errorf("resumed session id = %q", s.SessionID())
	}
}

func TestAPIBillingKeepsKey(t *testing.T) {
	o := Options{Env: []string{"ANTHROPIC_API_KEY=k", "CLAUDECODE=1", "PATH=/bin"}, UseAPIBilling: true}
	env := strings.Join(o.ChildEnv(), " ")
	if !strings.Contains(env, "ANTHROPIC_API_KEY=k") || strings.Contains(env, "CLAUDECODE") {
		t.Errorf("env = %s", env)
	}
}

func TestExtraArgsClash(t *testing.T) {
	for _, a := range []string{"--model", "--resume=x", "--permission-prompt-tool", "-p", "--dangerously-skip-permissions", "--add-dir", "--max-budget-usd=1", "--mcp-config"} {
		opts := fakeOpts(t, "echo")
		opts.ExtraArgs = []string{a}
		if _, err := Start(context.Background(), opts); !errors.Is(err, ErrManagedFlag) {
			t.Errorf("%s: err = %v, want ErrManagedFlag", a, err)
		}
	}
}

func TestMissingBinary(t *testing.T) {
	opts := fakeOpts(t, "echo")
	opts.Binary = "claude-definitely-not-installed-here"
	_, err := Start(context.Background(), opts)
	if err == nil || !strings.Contains(err.Error(), "claude-definitely-not-installed-here") {
		t.Fatalf("err = %v", err)
	}
}

func TestApprovalAllowWithRewrite(t *testing.T) {
	s := startFake(t, "approve")
	if err := s.Send(context.Background(), "a.txt"); err != nil {
		t.Fatal(err)
	}
	as := next[engine.ActionStarted](t, s)
	if as.Kind != "command" || as.Title != "touch a.txt" {
		t.Errorf("action = %+v", as)
	}
	req := next[engine.ApprovalRequest](t, s)
	if req.RequestID != "req-1" || req.ToolName != "Bash" || len(req.Suggestions) != 1 {
		t.Fatalf("request = %+v", req)
	}
	if got := s.Pending(); len(got) != 1 || got[0] != "req-1" {
		t.Errorf("pending = %v", got)
	}
	err := s.Allow(context.Background(), req.RequestID, json.RawMessage(`{"command":"touch b.txt"}`), req.Suggestions)
	if err != nil {
		t.Fatal(err)
	}
	// A second answer to the same request is refused, not written.
	if err := s.Deny(context.Background(), req.RequestID, "no", false); !errors.Is(err, engine.ErrUnknownRequest) {
		t.Errorf("double answer: %v", err)
	}
	done := next[engine.ActionCompleted](t, s)
	if !done.OK || !strings.Contains(done.Detail, "ran touch b.txt") || !strings.Contains(done.Detail, "acceptEdits") {
		t.Errorf("completed = %+v", done)
	}
	if tc := next[engine.TurnCompleted](t, s); tc.Result != "allowed: touch b.txt" {
		t.Errorf("turn = %+v", tc)
	}
}

func TestApprovalDenyAndInterrupt(t *testing.T) {
	s := startFake(t, "approve")
	_ = s.Send(context.Background(), "x")
	req := next[engine.ApprovalRequest](t, s)
	if err := s.Deny(context.Background(), req.RequestID, "not now", false); err != nil {
		t.Fatal(err)
	}
	if ac := next[engine.ActionCompleted](t, s); ac.OK || ac.Detail != "not now" {
		t.Errorf("completed = %+v", ac)
	}
	if tc := next[engine.TurnCompleted](t, s); !tc.OK || tc.Result != "denied: not now" {
		t.Errorf("turn = %+v", tc)
	}
	_ = s.Send(context.Background(), "y")
	req = next[engine.ApprovalRequest](t, s)
	if err := s.Deny(context.Background(), req.RequestID, "stop", true); err != nil {
		t.Fatal(err)
	}
	if tc := next[engine.TurnCompleted](t, s); tc.OK || !saidReason(tc, "aborted_tools") || tc.ErrorText != "interrupted" {
		t.Errorf("turn = %+v", tc)
	}
}

func TestUnknownIDAndClosedSession(t *testing.T) {
	s := startFake(t, "echo")
	if err := s.Allow(context.Background(), "nope", nil, nil); !errors.Is(err, engine.ErrUnknownRequest) {
		t.Errorf("unknown id: %v", err)
	}
	_ = s.Close(context.Background())
	if err := s.Allow(context.Background(), "nope", nil, nil); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("closed: %v", err)
	}
	if err := s.Interrupt(context.Background()); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("interrupt on closed: %v", err)
	}
}

func TestInterruptMidStream(t *testing.T) {
	s := startFake(t, "slow", func(o *Options) { o.IncludePartial = true })
	_ = s.Send(context.Background(), "story")
	if p := next[engine.Text](t, s); !p.Partial {
		t.Errorf("want partial text, got %+v", p)
	}
	if err := s.Interrupt(context.Background()); err != nil {
		t.Fatal(err)
	}
	tc := next[engine.TurnCompleted](t, s)
	if tc.OK || !saidReason(tc, "aborted_streaming") {
		t.Errorf("turn = %+v", tc)
	}
}

func TestSetPermissionMode(t *testing.T) {
	s := startFake(t, "echo")
	if err := s.SetPermissionMode(context.Background(), "plan"); err != nil {
		t.Fatal(err)
	}
	if m := next[engine.PermissionModeChanged](t, s); m.Mode != "plan" {
		t.Errorf("mode = %+v", m)
	}
	err := s.SetPermissionMode(context.Background(), "bogus")
	if err == nil || !strings.Contains(err.Error(), "Cannot set permission mode") {
		t.Errorf("bogus mode: %v", err)
	}
}

func TestControlTimeout(t *testing.T) {
	s := startFake(t, "deaf", func(o *Options) { o.ControlTimeout = 200 * time.Millisecond })
	if err := s.SetPermissionMode(context.Background(), "plan"); !errors.Is(err, ErrControlTimeout) {
		t.Errorf("err = %v, want ErrControlTimeout", err)
	}
}

func TestUnknownControlRequestGetsError(t *testing.T) {
	s := startFake(t, "unknown_control")
	_ = s.Send(context.Background(), "go")
	tc := next[engine.TurnCompleted](t, s)
	if !strings.HasPrefix(tc.Result, "error/mystery-1/") || !strings.Contains(tc.Result, "mystery") {
		t.Errorf("the CLI should receive an error response, result = %q", tc.Result)
	}
}

func TestHugeLineIsSkipped(t *testing.T) {
	s := startFake(t, "huge", func(o *Options) { o.MaxLineBytes = 1 << 20 })
	_ = s.Send(context.Background(), "go")
	txt := next[engine.Text](t, s)
	if txt.Text != "after the huge line" {
		t.Errorf("first text after the skipped line = %.40q", txt.Text)
	}
	if tc := next[engine.TurnCompleted](t, s); tc.Result != "survived" {
		t.Errorf("turn = %+v", tc)
	}
}

func TestHugeLineUnderDefaultCap(t *testing.T) {
	s := startFake(t, "huge")
	_ = s.Send(context.Background(), "go")
	// Decoding 20 MiB under -race on a busy 2-core machine took over 10 s
	// twice: the deadline only catches a hang.
	if txt := nextWithin[engine.Text](t, s, 2*time.Minute); len(txt.Text) != 20<<20 {
		t.Errorf("a 20 MiB line must be delivered whole under the 32 MiB cap, got %d bytes", len(txt.Text))
	}
}

func TestGarbageLines(t *testing.T) {
	s := startFake(t, "garbage")
	_ = s.Send(context.Background(), "go")
	if tc := next[engine.TurnCompleted](t, s); tc.Result != "still fine" {
		t.Errorf("turn = %+v", tc)
	}
}

func TestCrashMidTurn(t *testing.T) {
	s := startFake(t, "crash")
	_ = s.Send(context.Background(), "go")
	ex := waitExit(t, s)
	if ex.ExitCode != 3 || !ex.MidTurn || ex.Err == nil || !strings.Contains(ex.StderrTail, "simulated crash") {
		t.Errorf("exit = %+v", ex)
	}
	if err := s.Send(context.Background(), "again"); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("send after crash: %v", err)
	}
}

func TestExitWithoutResult(t *testing.T) {
	s := startFake(t, "noresult")
	_ = s.Send(context.Background(), "go")
	ex := waitExit(t, s)
	if ex.ExitCode != 0 || !ex.MidTurn || ex.Err == nil {
		t.Errorf("exit = %+v", ex)
	}
}

func TestOrphanHoldingStdout(t *testing.T) {
	s := startFake(t, "orphan")
	_ = s.Send(context.Background(), "go")
	start := time.Now()
	ex := waitExit(t, s)
	if !ex.MidTurn {
		t.Errorf("exit = %+v", ex)
	}
	// The grandchild holds stdout for 5 minutes (claudetest's "orphan"):
	// a wait for its EOF takes that long, one bounded by readerGrace not.
	if d := time.Since(start); d > time.Minute {
		t.Errorf("exit took %v with a grandchild holding stdout", d)
	}
	// The grandchild is in Claude's process group: Close must end it.
	_ = s.Close(context.Background())
	deadline := time.Now().Add(hangBound)
	for liveInGroup(s.Pid()) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := liveInGroup(s.Pid()); n > 0 {
		syscall.Kill(-s.Pid(), syscall.SIGKILL)
		t.Errorf("%d processes of group %d still alive after Close", n, s.Pid())
	}
}

// liveInGroup counts non-zombie processes in process group pgid. Zombies
// are ignored: in a container nobody may reap reparented children.
func liveInGroup(pgid int) int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	n := 0
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// Fields after the parenthesized command: state ppid pgrp ...
		rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
		fields := strings.Fields(rest)
		if len(fields) > 2 && fields[0] != "Z" && fields[2] == strconv.Itoa(pgid) {
			n++
		}
	}
	return n
}

func TestCloseEscalatesToKill(t *testing.T) {
	s := startFake(t, "ignore_term")
	_ = s.Send(context.Background(), "go")
	next[engine.TurnCompleted](t, s)
	start := time.Now()
	_ = s.Close(context.Background())
	ex := waitExit(t, s)
	if ex.Signal != "killed" {
		t.Errorf("exit = %+v, want killed", ex)
	}
	// Bounded by the graces this test set (0.6 s), not by the defaults,
	// which are the shortest Close that ignored them would take.
	if d := time.Since(start); d >= DefaultCloseGrace+DefaultTermGrace {
		t.Errorf("close took %v", d)
	}
}

func TestContextCancelClosesSession(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	opts := fakeOpts(t, "echo")
	s, err := Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-s.Done():
	case <-time.After(hangBound):
		t.Fatal("cancelling the start context did not end the process")
	}
}

func TestAPIErrorTurn(t *testing.T) {
	s := startFake(t, "api_error")
	_ = s.Send(context.Background(), "go")
	tc := next[engine.TurnCompleted](t, s)
	if tc.OK || !strings.Contains(tc.ErrorText, "400") {
		t.Errorf("turn = %+v", tc)
	}
}

func TestOneShotUsesPTY(t *testing.T) {
	opts := fakeOpts(t, "echo")
	s, err := StartOneShot(context.Background(), opts, "hello there")
	if err != nil {
		t.Fatal(err)
	}
	tc := next[engine.TurnCompleted](t, s)
	if tc.Result != "oneshot: hello there (stdin tty=true)" {
		t.Errorf("result = %q", tc.Result)
	}
	if ex := waitExit(t, s); ex.ExitCode != 0 || ex.MidTurn {
		t.Errorf("exit = %+v", ex)
	}
	if err := s.Send(context.Background(), "x"); !errors.Is(err, ErrNoControl) {
		t.Errorf("send in one-shot: %v", err)
	}
	for range s.Events() {
	}
}

func TestSlowConsumerLosesNothing(t *testing.T) {
	s := startFake(t, "echo")
	const turns = 30
	for i := 0; i < turns; i++ {
		if err := s.Send(context.Background(), "m"); err != nil {
			t.Fatal(err)
		}
	}
	// Let the CLI run ahead while nobody reads; control calls still work.
	time.Sleep(200 * time.Millisecond)
	if err := s.SetPermissionMode(context.Background(), "acceptEdits"); err != nil {
		t.Fatalf("control call while the consumer is stalled: %v", err)
	}
	got := 0
	for got < turns {
		next[engine.TurnCompleted](t, s)
		got++
	}
}

func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for i := 0; i < 5; i++ {
		opts := fakeOpts(t, "echo")
		s, err := Start(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		_ = s.Send(context.Background(), "x")
		_ = s.Close(context.Background())
		for range s.Events() {
		}
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

// downHost is a machine that does not answer.
type downHost struct{ host.Local }

func (downHost) LookPath(context.Context, string) (string, error) {
	return "", &host.Unreachable{Reason: "ssh: connect to host box port 22: Connection refused"}
}

// A host that does not answer is no missing Claude Code: the error keeps
// host.ErrUnreachable and ssh's reason, and says nothing about installing.
func TestUnreachableHostIsNoMissingBinary(t *testing.T) {
	opts := fakeOpts(t, "echo")
	opts.Host = downHost{}
	_, err := Start(context.Background(), opts)
	if !errors.Is(err, host.ErrUnreachable) || !strings.Contains(err.Error(), "Connection refused") ||
		strings.Contains(err.Error(), "install") {
		t.Fatalf("err = %v, want the host's reason without an install hint", err)
	}
}
