package approvals

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

const planInputJSON = `{"plan":"# Plan\n1. Write plan-result.txt\n2. Report back\n","planFilePath":"/home/user/.claude/plans/p.md"}`

func TestAutoApprove(t *testing.T) {
	allow := MergeAllowList([]string{"Bash(git status:*)"}, DefaultAutoApprove())
	tests := []struct {
		name       string
		cfg        Config
		req        Request
		wantAuto   bool
		wantReason string
	}{
		{"default list TodoWrite", Config{AllowList: allow}, toolReq("1", "TodoWrite", `{"todos":[]}`), true, "allow list"},
		{"default list Read outside the session asks", Config{AllowList: allow}, toolReq("1", "Read", `{"file_path":"/a"}`), false, ""},
		{"plain name not listed", Config{AllowList: allow}, toolReq("1", "Write", `{"file_path":"/a"}`), false, ""},
		{"bash prefix rule", Config{AllowList: allow}, toolReq("1", "Bash", `{"command":"git status -s"}`), true, "allow list"},
		{"bash other command", Config{AllowList: allow}, toolReq("1", "Bash", `{"command":"touch a.txt"}`), false, ""},
		{"bash compound command", Config{AllowList: allow}, toolReq("1", "Bash", `{"command":"git status; touch a"}`), false, ""},
		{"skip permissions", Config{SkipPermissions: true}, toolReq("1", "Bash", `{"command":"touch a.txt"}`), true, "skip permissions"},
		{"bypass mode", Config{}, withMode(toolReq("1", "Write", `{}`), "bypassPermissions", ""), true, "bypassPermissions mode"},
		{"acceptEdits mode still asks", Config{}, withMode(toolReq("1", "Bash", `{"command":"x"}`), "acceptEdits", ""), false, ""},
		{"ExitPlanMode in auto plan mode", Config{}, withMode(toolReq("1", "ExitPlanMode", planInputJSON), "plan", PlanAuto), true, "plan mode auto"},
		{"ExitPlanMode plan on asks", Config{}, withMode(toolReq("1", "ExitPlanMode", planInputJSON), "plan", PlanOn), false, ""},
		{"ExitPlanMode asks despite skip", Config{SkipPermissions: true, AllowList: []string{"ExitPlanMode"}}, withMode(toolReq("1", "ExitPlanMode", planInputJSON), "plan", ""), false, ""},
		{"AskUserQuestion asks despite bypass", Config{SkipPermissions: true}, withMode(toolReq("1", "AskUserQuestion", questionsJSON), "bypassPermissions", PlanAuto), false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := newTestBroker(tc.cfg)
			r := &fakeResponder{}
			sub := mustSubmit(t, b, tc.req, r)
			if sub.Auto() != tc.wantAuto {
				t.Fatalf("Auto = %v (reason %q), want %v", sub.Auto(), sub.Reason, tc.wantAuto)
			}
			if !tc.wantAuto {
				if len(r.all()) != 0 {
					t.Fatalf("a prompted request was answered: %+v", r.all())
				}
				if len(b.Pending(tc.req.SessionKey)) != 1 {
					t.Fatal("prompted request is not pending")
				}
				return
			}
			c := r.only(t)
			if !c.allow || c.id != tc.req.RequestID || !bytes.Equal(c.input, tc.req.Input) || c.perms != nil {
				t.Fatalf("auto answer = %+v, want allow %s with the original input", c, tc.req.RequestID)
			}
			if sub.Outcome != OutcomeApproved || sub.Reason != tc.wantReason {
				t.Fatalf("submission = %+v, want approved by %q", sub, tc.wantReason)
			}
			if len(b.Pending(tc.req.SessionKey)) != 0 {
				t.Fatal("auto-answered request left pending")
			}
		})
	}
}

func withMode(r Request, perm, plan string) Request {
	r.PermissionMode, r.PlanMode = perm, plan
	return r
}

func TestAutoAnswerWriteError(t *testing.T) {
	b, _ := newTestBroker(Config{AllowList: []string{"TodoWrite"}})
	boom := errors.New("process gone")
	_, err := b.Submit(context.Background(), toolReq("1", "TodoWrite", `{}`), &fakeResponder{err: boom})
	if !errors.Is(err, boom) {
		t.Fatalf("Submit error = %v, want it to wrap %v", err, boom)
	}
}

func TestApproveAndDeny(t *testing.T) {
	b, _ := newTestBroker(Config{})
	r := &fakeResponder{}
	req := toolReq("r1", "Bash", `{"command":"touch a.txt","description":"x"}`)
	req.Suggestions = []json.RawMessage{json.RawMessage(`{"type":"setMode","mode":"acceptEdits","destination":"session"}`)}
	p := mustPrompt(t, b, req, r)
	if p.Kind != KindTool || len(p.Actions) != 3 {
		t.Fatalf("prompt = %+v, want a tool prompt with Approve, Deny, Always", p)
	}
	if pend := b.Pending(req.SessionKey); len(pend) != 1 || pend[0].RequestID != req.RequestID {
		t.Fatalf("Pending before the answer = %+v", pend)
	}
	res := mustPress(t, b, tokenOf(t, p, ActionApprove))
	if res.Outcome != OutcomeApproved || res.UserID != owner ||
		res.Request.RequestID != "r1" || res.Request.ChatID != chatA {
		t.Fatalf("result = %+v", res)
	}
	c := r.only(t)
	if !c.allow || c.id != "r1" || !bytes.Equal(c.input, req.Input) || c.perms != nil {
		t.Fatalf("approve wrote %+v", c)
	}
	if pend := b.Pending(req.SessionKey); len(pend) != 0 {
		t.Fatalf("still pending after the answer: %+v", pend)
	}

	r2 := &fakeResponder{}
	p2 := mustPrompt(t, b, toolReq("r2", "Write", `{"file_path":"/a"}`), r2)
	if len(p2.Actions) != 2 || p2.AlwaysAllow != nil {
		t.Fatalf("without suggestions there must be no Always allow: %+v", p2)
	}
	res = mustPress(t, b, tokenOf(t, p2, ActionDeny))
	c = r2.only(t)
	if c.allow || c.id != "r2" || c.interrupt || c.message != msgDenied || res.Message != msgDenied {
		t.Fatalf("deny wrote %+v, result %+v", c, res)
	}
	if res.Outcome != OutcomeDenied {
		t.Fatalf("result = %+v", res)
	}
}

func TestAlwaysAllow(t *testing.T) {
	b, _ := newTestBroker(Config{})
	r := &fakeResponder{}
	// Verbatim from c_perm_always_allow, including spacing, to prove the bytes pass through.
	sugg := []json.RawMessage{
		json.RawMessage(`{"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "touch a.txt"}], "behavior": "allow", "destination": "localSettings"}`),
		json.RawMessage(`{"type": "addDirectories", "directories": ["/home/user/project"], "destination": "session"}`),
		json.RawMessage(`{"type": "setMode", "mode": "acceptEdits", "destination": "session"}`),
	}
	req := toolReq("r1", "Bash", `{"command": "touch a.txt", "description": "test"}`)
	req.Suggestions = sugg
	p := mustPrompt(t, b, req, r)
	wantLines := []string{
		"In this project's local settings, always allow Bash: touch a.txt",
		"For this session, allow access to /home/user/project",
		"For this session, accept file edits",
	}
	if fmt.Sprint(p.AlwaysAllow) != fmt.Sprint(wantLines) {
		t.Fatalf("AlwaysAllow = %q, want %q", p.AlwaysAllow, wantLines)
	}
	res := mustPress(t, b, tokenOf(t, p, ActionAlways))
	if res.Outcome != OutcomeAlways {
		t.Fatalf("result = %+v", res)
	}
	c := r.only(t)
	if !c.allow || !bytes.Equal(c.input, req.Input) || len(c.perms) != len(sugg) {
		t.Fatalf("always wrote %+v", c)
	}
	for i := range sugg {
		if !bytes.Equal(c.perms[i], sugg[i]) {
			t.Fatalf("updatedPermissions[%d] = %s, want %s", i, c.perms[i], sugg[i])
		}
	}
}

func TestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, hook := newTestBroker(Config{Timeout: 5 * time.Minute})
		r := &fakeResponder{}
		req := toolReq("r1", "Bash", `{"command":"touch a"}`)
		p := mustPrompt(t, b, req, r)
		start := time.Now()
		if want := start.Add(5 * time.Minute); !p.Deadline.Equal(want) {
			t.Fatalf("Deadline = %v, want %v", p.Deadline, want)
		}

		time.Sleep(5*time.Minute - time.Second)
		synctest.Wait()
		if n := len(r.all()); n != 0 || len(hook.all()) != 0 {
			t.Fatalf("answered %d times before the timeout", n)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		c := r.only(t)
		if c.allow || c.id != "r1" || c.interrupt {
			t.Fatalf("timeout wrote %+v, want a deny", c)
		}
		if !strings.Contains(c.message, "timing out") || !strings.Contains(c.message, "did not answer in time (5 minutes)") {
			t.Fatalf("timeout message %q does not say it timed out", c.message)
		}
		got := hook.all()
		if len(got) != 1 || got[0].Outcome != OutcomeTimedOut || got[0].Request.RequestID != "r1" ||
			got[0].Request.SessionKey != req.SessionKey || got[0].Message != c.message || got[0].Err != nil {
			t.Fatalf("hook got %+v", got)
		}
		if _, err := b.Press(context.Background(), tokenOf(t, p, ActionApprove), owner, chatA); refusalKind(err) != Stale {
			t.Fatalf("press after timeout: err %v, want Stale", err)
		}
	})
}

func TestTimeoutWriteErrorReachesHook(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, hook := newTestBroker(Config{Timeout: time.Minute})
		boom := errors.New("stdin closed")
		mustPrompt(t, b, toolReq("r1", "Bash", `{}`), &fakeResponder{err: boom})
		time.Sleep(time.Minute + time.Second)
		synctest.Wait()
		got := hook.all()
		if len(got) != 1 || !errors.Is(got[0].Err, boom) {
			t.Fatalf("hook got %+v, want one resolution carrying %v", got, boom)
		}
	})
}

func TestAnswerStopsTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, hook := newTestBroker(Config{Timeout: time.Minute})
		r := &fakeResponder{}
		p := mustPrompt(t, b, toolReq("r1", "Bash", `{}`), r)
		mustPress(t, b, tokenOf(t, p, ActionDeny))
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if len(r.all()) != 1 || len(hook.all()) != 0 {
			t.Fatalf("timer fired after the answer: calls %+v, hook %+v", r.all(), hook.all())
		}
	})
}

func TestConcurrentPresses(t *testing.T) {
	for round := range 20 {
		b, _ := newTestBroker(Config{})
		r := &fakeResponder{}
		req := toolReq(fmt.Sprint("r", round), "Bash", `{"command":"x"}`)
		p := mustPrompt(t, b, req, r)
		// Approve and Deny pressed at once, many times, released together.
		var toks []string
		for range 8 {
			toks = append(toks, tokenOf(t, p, ActionApprove), tokenOf(t, p, ActionDeny))
		}
		start := make(chan struct{})
		var (
			wg             sync.WaitGroup
			mu             sync.Mutex
			wins, stale    int
			otherRefusals  []error
			winningOutcome Outcome
		)
		for _, tok := range toks {
			wg.Go(func() {
				<-start
				res, err := b.Press(context.Background(), tok, owner, chatA)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					wins++
					winningOutcome = res.Outcome
				case refusalKind(err) == Stale:
					stale++
				default:
					otherRefusals = append(otherRefusals, err)
				}
			})
		}
		close(start)
		wg.Wait()
		if wins != 1 || stale != len(toks)-1 || otherRefusals != nil {
			t.Fatalf("round %d: %d wins, %d stale, others %v", round, wins, stale, otherRefusals)
		}
		c := r.only(t)
		if c.allow != (winningOutcome == OutcomeApproved) {
			t.Fatalf("round %d: winner %s but responder got %+v", round, winningOutcome, c)
		}
	}
}

func TestRefusals(t *testing.T) {
	b, _ := newTestBroker(Config{})
	r := &fakeResponder{}
	p := mustPrompt(t, b, toolReq("r1", "Bash", `{}`), r)
	tok := tokenOf(t, p, ActionApprove)

	var ref *Refusal
	_, err := b.Press(context.Background(), "no-such-token", owner, chatA)
	if !errors.As(err, &ref) || ref.Kind != Stale {
		t.Fatalf("unknown token: %v", err)
	}
	_, err = b.Press(context.Background(), tok, intrud, chatA)
	if !errors.As(err, &ref) || ref.Kind != Unauthorized {
		t.Fatalf("unauthorized presser: %v", err)
	}
	_, err = b.Press(context.Background(), tok, owner, chatB)
	if !errors.As(err, &ref) || ref.Kind != ForeignChat {
		t.Fatalf("foreign chat: %v", err)
	}
	if len(r.all()) != 0 {
		t.Fatalf("a refused press answered: %+v", r.all())
	}
	// Refusals leave the request usable.
	mustPress(t, b, tok)
	if _, err := b.Press(context.Background(), tok, owner, chatA); refusalKind(err) != Stale {
		t.Fatalf("second press: %v, want Stale", err)
	}
	r.only(t)

	nobody := New(Config{}) // no IsAllowed: nobody may press
	p = mustPrompt(t, nobody, toolReq("r2", "Bash", `{}`), r)
	if _, err := nobody.Press(context.Background(), tokenOf(t, p, ActionApprove), owner, chatA); refusalKind(err) != Unauthorized {
		t.Fatalf("without IsAllowed: %v, want Unauthorized", err)
	}
}

func TestPressWriteError(t *testing.T) {
	b, _ := newTestBroker(Config{})
	boom := errors.New("broken pipe")
	p := mustPrompt(t, b, toolReq("r1", "Bash", `{}`), &fakeResponder{err: boom})
	res, err := b.Press(context.Background(), tokenOf(t, p, ActionApprove), owner, chatA)
	if !errors.Is(err, boom) || refusalKind(err) != "" {
		t.Fatalf("err = %v, want the responder error", err)
	}
	if res.Outcome != OutcomeApproved || res.Request.RequestID != "r1" {
		t.Fatalf("result with a write error = %+v", res)
	}
	if len(b.Pending("100")) != 0 {
		t.Fatal("request still pending after a failed write")
	}
}

func TestSeveralPending(t *testing.T) {
	b, _ := newTestBroker(Config{})
	r := &fakeResponder{}
	var prompts []*Prompt
	for i := range 3 {
		prompts = append(prompts, mustPrompt(t, b, toolReq(fmt.Sprint("r", i), "Bash", fmt.Sprintf(`{"command":"c%d"}`, i)), r))
	}
	// The same request id in another session is a different request.
	other := toolReq("r1", "Bash", `{"command":"elsewhere"}`)
	other.ChatID, other.SessionKey = chatB, "200"
	rb := &fakeResponder{}
	po := mustPrompt(t, b, other, rb)

	if got := b.Pending("100"); len(got) != 3 || got[0].RequestID != "r0" || got[2].RequestID != "r2" {
		t.Fatalf("Pending = %+v", got)
	}
	if _, err := b.Submit(context.Background(), toolReq("r1", "Bash", `{}`), r); err == nil {
		t.Fatal("a duplicate request id in one session was accepted")
	}
	mustPress(t, b, tokenOf(t, prompts[2], ActionDeny))
	mustPress(t, b, tokenOf(t, prompts[0], ActionApprove))
	mustPress(t, b, tokenOf(t, prompts[1], ActionApprove))
	calls := r.all()
	want := []struct {
		id    string
		allow bool
		cmd   string
	}{{"r2", false, ""}, {"r0", true, "c0"}, {"r1", true, "c1"}}
	if len(calls) != len(want) {
		t.Fatalf("calls = %+v", calls)
	}
	for i, w := range want {
		if calls[i].id != w.id || calls[i].allow != w.allow || (w.allow && !strings.Contains(string(calls[i].input), w.cmd)) {
			t.Fatalf("call %d = %+v, want %+v", i, calls[i], w)
		}
	}
	if len(rb.all()) != 0 || len(b.Pending("200")) != 1 {
		t.Fatal("answering one session touched the other")
	}
	if _, err := b.Press(context.Background(), tokenOf(t, po, ActionApprove), owner, chatB); err != nil {
		t.Fatal(err)
	}
	if c := rb.only(t); !c.allow || c.id != "r1" || !strings.Contains(string(c.input), "elsewhere") {
		t.Fatalf("other session got %+v", c)
	}
}

func TestCancelSession(t *testing.T) {
	b, hook := newTestBroker(Config{})
	r := &fakeResponder{}
	p1 := mustPrompt(t, b, toolReq("r1", "Bash", `{}`), r)
	mustPrompt(t, b, toolReq("r2", "ExitPlanMode", planInputJSON), r)
	other := toolReq("r3", "Bash", `{}`)
	other.ChatID, other.SessionKey = chatB, "200"
	rb := &fakeResponder{}
	mustPrompt(t, b, other, rb)

	n, err := b.CancelSession(context.Background(), "100", "the turn was cancelled")
	if err != nil || n != 2 {
		t.Fatalf("CancelSession = %d, %v", n, err)
	}
	calls := r.all()
	if len(calls) != 2 || calls[0].id != "r1" || calls[1].id != "r2" {
		t.Fatalf("calls = %+v", calls)
	}
	for _, c := range calls {
		if c.allow || c.interrupt || !strings.Contains(c.message, "the turn was cancelled") {
			t.Fatalf("cancel wrote %+v", c)
		}
	}
	got := hook.all()
	if len(got) != 2 || got[0].Outcome != OutcomeCancelled || got[1].Request.RequestID != "r2" ||
		got[1].Request.SessionKey != "100" || got[1].Reason != "the turn was cancelled" {
		t.Fatalf("hook got %+v", got)
	}
	if _, err := b.Press(context.Background(), tokenOf(t, p1, ActionApprove), owner, chatA); refusalKind(err) != Stale {
		t.Fatalf("press after cancel: %v, want Stale", err)
	}
	if len(rb.all()) != 0 || len(b.Pending("200")) != 1 {
		t.Fatal("cancelling one session touched another")
	}

	// A closed responder: the error comes back, joined, and the hook still hears.
	boom := errors.New("closed")
	dead := toolReq("r4", "Bash", `{}`)
	dead.SessionKey = "100:7"
	mustPrompt(t, b, dead, &fakeResponder{err: boom})
	n, err = b.CancelSession(context.Background(), "100:7", "session closed")
	if n != 1 || !errors.Is(err, boom) {
		t.Fatalf("CancelSession on a closed responder = %d, %v", n, err)
	}
	if got := hook.all(); len(got) != 3 || !errors.Is(got[2].Err, boom) {
		t.Fatalf("hook got %+v", got)
	}
	if n, err := b.CancelSession(context.Background(), "100:7", "again"); n != 0 || err != nil {
		t.Fatalf("second CancelSession = %d, %v", n, err)
	}
}

// TestWithdraw: a request the CLI took back is resolved without writing
// anything (the CLI no longer waits), reported as withdrawn, and its
// buttons are dead; other requests of the session stay pending.
func TestWithdraw(t *testing.T) {
	b, hook := newTestBroker(Config{})
	r := &fakeResponder{}
	p1 := mustPrompt(t, b, toolReq("r1", "Bash", `{}`), r)
	mustPrompt(t, b, toolReq("r2", "Bash", `{}`), r)

	if !b.Withdraw("100", "r1") {
		t.Fatal("Withdraw of a pending request reported false")
	}
	if calls := r.all(); len(calls) != 0 {
		t.Fatalf("withdrawing wrote to the CLI: %+v", calls)
	}
	got := hook.all()
	if len(got) != 1 || got[0].Outcome != OutcomeWithdrawn || got[0].Request.RequestID != "r1" ||
		got[0].Request.SessionKey != "100" || got[0].Message != "" || !got[0].Outcome.Final() {
		t.Fatalf("hook got %+v", got)
	}
	_, err := b.Press(context.Background(), tokenOf(t, p1, ActionApprove), owner, chatA)
	var ref *Refusal
	if !errors.As(err, &ref) || ref.Kind != Stale {
		t.Fatalf("press after withdraw: %v, want Stale", err)
	}
	if len(r.all()) != 0 {
		t.Fatal("a press on a withdrawn request wrote to the CLI")
	}
	if p := b.Pending("100"); len(p) != 1 || p[0].RequestID != "r2" {
		t.Fatalf("pending = %+v, want r2 alone", p)
	}
	if b.Withdraw("100", "r1") || b.Withdraw("100", "nope") || b.Withdraw("200", "r2") {
		t.Fatal("Withdraw of a request that is not pending reported true")
	}
	if len(hook.all()) != 1 {
		t.Fatalf("hook heard more: %+v", hook.all())
	}
}
