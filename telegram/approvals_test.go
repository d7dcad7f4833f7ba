package telegram_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// oneAsk is a script that asks req once and reports the decision.
func oneAsk(req engine.ApprovalRequest) enginetest.Script {
	return func(tr *enginetest.Turn) {
		tr.Start("m")
		d := tr.Ask(req)
		if d.Interrupted {
			tr.Aborted()
			return
		}
		tr.Complete("tool " + decisionWord(d))
	}
}

func TestApprovalApprove(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const cmd = `touch "a<b>.txt" && echo done`
		req := toolReq(t, "req-1", "Bash", map[string]any{"command": cmd, "description": "Create a & b"}, bashRule(cmd), json.RawMessage(acceptEdits))
		h := newHarness(t, oneAsk(req))
		msg := h.say("make the file")
		progress := h.progressFor(h.dm.ID, msg)
		prompt := h.awaitPrompt(h.dm.ID, "Approve", cmd)

		if prompt.ReplyTo != progress.ID {
			t.Errorf("the prompt should reply to the progress message %d, replies to %d", progress.ID, prompt.ReplyTo)
		}
		if !strings.Contains(prompt.Source, "a&lt;b&gt;.txt") || !strings.Contains(prompt.Source, "Create a &amp; b") {
			t.Errorf("the preview is not HTML-escaped: %q", prompt.Source)
		}
		rows := buttonTexts(prompt)
		if len(rows) != 2 || len(rows[0]) != 2 || !strings.Contains(rows[0][0], "Approve") ||
			!strings.Contains(rows[0][1], "Deny") || !strings.Contains(rows[1][0], "Always allow") {
			t.Errorf("buttons = %v, want [Approve Deny] [Always allow]", rows)
		}
		// Approve is green and Deny red (Bot API 9.4 button styles).
		if st := buttonStyles(prompt); st["Approve"] != "success" || st["Deny"] != "danger" {
			t.Errorf("button styles = %v, want Approve success and Deny danger", st)
		}
		for _, row := range prompt.Keyboard {
			for _, b := range row {
				if !strings.HasPrefix(b.CallbackData, "a:") || len(b.CallbackData) > 64 || strings.Contains(b.CallbackData, "req-1") {
					t.Errorf("callback data %q should be a short opaque token", b.CallbackData)
				}
			}
		}
		// The Always allow button says in plain words what it saves.
		for _, want := range []string{"Always allow will", "always allow Bash: " + cmd, "For this session, accept file edits"} {
			if !strings.Contains(prompt.Text, want) {
				t.Errorf("prompt lacks %q:\n%s", want, prompt.Text)
			}
		}
		t.Logf("tool prompt:\n%s\nbuttons: %v", prompt.Text, rows)

		cq := h.press(h.user, h.dm, prompt, "Approve")
		if got := h.toast(cq); got != "Approved" {
			t.Errorf("toast = %q", got)
		}
		a := h.onlyAnswer(0)
		if a.RequestID != "req-1" || !a.Decision.Allow || a.Decision.UpdatedPermissions != nil {
			t.Errorf("answer = %+v, want a plain allow of req-1", a)
		}
		if !bytes.Equal(a.Decision.UpdatedInput, req.Input) {
			t.Errorf("updatedInput = %s, want the request's input", a.Decision.UpdatedInput)
		}
		edited := h.awaitResolved(h.dm.ID, prompt.ID, "Approved by @ada")
		if !strings.Contains(edited.Text, cmd) || strings.Contains(edited.Text, "Answer within") {
			t.Errorf("the resolved prompt should show what was decided, without the stale deadline: %q", edited.Text)
		}
		t.Logf("after Approve:\n%s", edited.Text)
		h.awaitText(h.dm.ID, "tool allowed")
	})
}

func TestApprovalDeny(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		req := toolReq(t, "req-d", "Write", map[string]any{"file_path": "/work/notes/todo.md", "content": "# Todo\n- one\n- two\n"})
		h := newHarness(t, oneAsk(req))
		h.say("write todo")
		prompt := h.awaitPrompt(h.dm.ID, "Deny", "notes/todo.md")
		if _, ok := findButton(prompt, "Always allow"); ok {
			t.Errorf("no permission suggestions, so no Always allow button: %v", buttonTexts(prompt))
		}
		if !strings.Contains(prompt.Text, "3 lines") || !strings.Contains(prompt.Text, "- two") {
			t.Errorf("a Write prompt shows the file and its first lines: %q", prompt.Text)
		}
		t.Logf("write prompt:\n%s", prompt.Text)
		cq := h.press(h.user, h.dm, prompt, "Deny")
		if got := h.toast(cq); got != "Denied" {
			t.Errorf("toast = %q", got)
		}
		a := h.onlyAnswer(0)
		if a.Decision.Allow || a.Decision.Interrupt || !strings.Contains(a.Decision.Message, "denied") {
			t.Errorf("answer = %+v, want a deny that tells claude the user said no", a)
		}
		h.awaitResolved(h.dm.ID, prompt.ID, "Denied by @ada")
		h.awaitText(h.dm.ID, "tool denied")
	})
}

func TestApprovalAlwaysAllow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sugg := []json.RawMessage{bashRule("make build"), json.RawMessage(acceptEdits)}
		req := toolReq(t, "req-a", "Bash", map[string]any{"command": "make build"}, sugg...)
		h := newHarness(t, oneAsk(req))
		h.say("build it")
		prompt := h.awaitPrompt(h.dm.ID, "Always allow", "make build")
		cq := h.press(h.user, h.dm, prompt, "Always allow")
		if got := h.toast(cq); got != "Always allowed" {
			t.Errorf("toast = %q", got)
		}
		a := h.onlyAnswer(0)
		if !a.Decision.Allow || len(a.Decision.UpdatedPermissions) != 2 {
			t.Fatalf("answer = %+v, want allow with the suggestions as updatedPermissions", a)
		}
		for i, p := range a.Decision.UpdatedPermissions {
			if !bytes.Equal(p, sugg[i]) {
				t.Errorf("updatedPermissions[%d] = %s, want the suggestion verbatim %s", i, p, sugg[i])
			}
		}
		edited := h.awaitResolved(h.dm.ID, prompt.ID, "Always allowed by @ada")
		t.Logf("after Always allow:\n%s", edited.Text)
	})
}

func TestApprovalPreviews(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reqs := []engine.ApprovalRequest{
			toolReq(t, "e", "Edit", map[string]any{"file_path": "/work/main.go", "old_string": "fmt.Println(\"hi\")", "new_string": "log.Print(\"<hi>\")"}),
			toolReq(t, "m", "mcp__github__create_issue", map[string]any{"title": "Crash on start", "body": "Steps: run it"}),
		}
		var mu sync.Mutex
		var got []string
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			for _, r := range reqs {
				d := tr.Ask(r)
				mu.Lock()
				got = append(got, decisionWord(d))
				mu.Unlock()
			}
			tr.Complete("previews done")
		})
		h.say("show me")
		edit := h.awaitPrompt(h.dm.ID, "Approve", "main.go")
		for _, want := range []string{"edit", "- fmt.Println(\"hi\")", "+ log.Print(\"<hi>\")"} {
			if !strings.Contains(edit.Text, want) {
				t.Errorf("edit prompt lacks %q:\n%s", want, edit.Text)
			}
		}
		t.Logf("edit prompt:\n%s", edit.Text)
		h.toast(h.press(h.user, h.dm, edit, "Approve"))
		mcp := h.awaitPrompt(h.dm.ID, "Approve", "create_issue")
		if !strings.Contains(mcp.Text, "title: Crash on start") {
			t.Errorf("other tools show their key arguments:\n%s", mcp.Text)
		}
		t.Logf("mcp prompt:\n%s", mcp.Text)
		h.toast(h.press(h.user, h.dm, mcp, "Deny"))
		h.awaitText(h.dm.ID, "previews done")
		if strings.Join(got, ",") != "allowed,denied" {
			t.Errorf("decisions = %v", got)
		}
	})
}

func TestApprovalAutoAllow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var got []string
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			asks := []engine.ApprovalRequest{
				toolReq(t, "r", "Read", map[string]any{"file_path": "/work/go.mod"}), // inside WorkDir
				toolReq(t, "g", "Bash", map[string]any{"command": "git status -s"}),
				toolReq(t, "x", "Bash", map[string]any{"command": "git status; rm -rf /"}),
			}
			for _, r := range asks {
				d := tr.Ask(r)
				mu.Lock()
				got = append(got, r.RequestID+"="+decisionWord(d))
				mu.Unlock()
			}
			tr.Complete("auto done")
		}, func(c *telegram.Config) {
			c.AllowList = approvals.MergeAllowList([]string{"Bash(git status:*)"}, approvals.DefaultAutoApprove())
		})
		h.say("look around")
		// Read and the allow-listed git status are never shown; the chained
		// command is not what the rule allows, so it is asked.
		prompt := h.awaitPrompt(h.dm.ID, "Deny", "rm -rf")
		if n := len(h.answersOf(0)); n != 2 {
			t.Errorf("%d answers before the prompt, want the two automatic allows", n)
		}
		h.toast(h.press(h.user, h.dm, prompt, "Deny"))
		h.awaitText(h.dm.ID, "auto done")
		if strings.Join(got, ",") != "r=allowed,g=allowed,x=denied" {
			t.Errorf("decisions = %v", got)
		}
		for _, m := range h.tg.Messages(h.dm.ID) {
			if len(m.Keyboard) > 0 && (strings.Contains(m.Text, "go.mod") || strings.Contains(m.Text, "git status -s")) {
				t.Errorf("an allow-listed request was shown: %q", m.Text)
			}
		}
	})
}

func TestApprovalSkipPermissionsAndBypass(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  harnessOpt
		mode string
	}{
		{"skip", func(c *telegram.Config) { c.SkipPerms = true }, ""},
		{"bypass", nil, "bypassPermissions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var opts []harnessOpt
				if tc.opt != nil {
					opts = append(opts, tc.opt)
				}
				h := newHarness(t, func(tr *enginetest.Turn) {
					if tc.mode != "" {
						tr.Emit(engine.PermissionModeChanged{Mode: tc.mode})
					}
					tr.Emit(engine.SessionStarted{SessionID: "s", Model: "m", PermissionMode: firstOf(tc.mode, "default")})
					d := tr.Ask(toolReq(t, "w", "Bash", map[string]any{"command": "rm -rf build"}))
					q := tr.Ask(toolReq(t, "q", "AskUserQuestion", map[string]any{"questions": []any{map[string]any{
						"question": "Proceed?", "header": "Go", "multiSelect": false,
						"options": []any{map[string]any{"label": "Yes"}, map[string]any{"label": "No"}}}}}))
					tr.Complete("bash " + decisionWord(d) + ", question " + decisionWord(q))
				}, opts...)
				h.say("clean")
				// The question still goes to the user.
				prompt := h.awaitPrompt(h.dm.ID, "Yes", "Proceed?")
				h.toast(h.press(h.user, h.dm, prompt, "Yes"))
				h.awaitText(h.dm.ID, "bash allowed, question allowed")
				for _, m := range h.tg.Messages(h.dm.ID) {
					if strings.Contains(m.Text, "rm -rf build") {
						t.Errorf("nothing is asked with %s: %q", tc.name, m.Text)
					}
				}
			})
		})
	}
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func TestApprovalDoublePressOneDecision(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, oneAsk(toolReq(t, "dp", "Bash", map[string]any{"command": "make deploy"})))
		h.say("deploy")
		prompt := h.awaitPrompt(h.dm.ID, "Approve", "make deploy")
		// Both presses are queued before the bot sees either (a double tap).
		cq1 := h.press(h.user, h.dm, prompt, "Approve")
		cq2 := h.press(h.user, h.dm, prompt, "Deny")
		toasts := []string{h.toast(cq1), h.toast(cq2)}
		a := h.onlyAnswer(0)
		winner := "Approved"
		if !a.Decision.Allow {
			winner = "Denied"
		}
		stale := 0
		for _, s := range toasts {
			if s == "This request is no longer pending" {
				stale++
			} else if s != winner {
				t.Errorf("toast %q does not match the decision written (%s)", s, winner)
			}
		}
		if stale != 1 {
			t.Errorf("toasts = %v, want one decision and one refusal", toasts)
		}
		h.awaitResolved(h.dm.ID, prompt.ID, winner+" by @ada")
		// A late press from a client that still shows the buttons is refused too.
		data, _ := findButton(prompt, "Approve")
		late := h.tg.SendCallbackQuery(h.user, h.dm, prompt.ID, data)
		if got := h.toast(late); got != "This request is no longer pending" {
			t.Errorf("late toast = %q", got)
		}
		if n := len(h.answersOf(0)); n != 1 {
			t.Errorf("%d answers written, want 1", n)
		}
	})
}

func TestApprovalGroupStrangerCannotPress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, oneAsk(toolReq(t, "g1", "Bash", map[string]any{"command": "make release"})))
		g := tgtest.Supergroup(-100777, "team")
		h.tg.AddChat(g)
		h.tg.SendMessage(h.user, g, "@"+h.tg.Bot().Username+" release it")
		prompt := h.awaitPrompt(g.ID, "Approve", "make release")
		mallory := tgtest.User{ID: 31337, FirstName: "Mallory", Username: "mallory"}
		cq := h.press(mallory, g, prompt, "Approve")
		if got := h.toast(cq); got != "You are not allowed to answer this" {
			t.Errorf("stranger's toast = %q", got)
		}
		if n := len(h.answersOf(0)); n != 0 {
			t.Fatalf("a stranger's press wrote %d answers", n)
		}
		if m, _ := h.tg.Message(g.ID, prompt.ID); len(m.Keyboard) == 0 {
			t.Fatal("a refused press must leave the buttons")
		}
		cq = h.press(h.user, g, prompt, "Deny")
		if got := h.toast(cq); got != "Denied" {
			t.Errorf("toast = %q", got)
		}
		h.awaitResolved(g.ID, prompt.ID, "Denied by @ada")
		h.awaitText(g.ID, "tool denied")
	})
}

func TestApprovalForeignChatPress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, oneAsk(toolReq(t, "f1", "Bash", map[string]any{"command": "make clean"})))
		h.say("clean")
		prompt := h.awaitPrompt(h.dm.ID, "Approve", "make clean")
		data, _ := findButton(prompt, "Approve")
		// The same callback data arriving from another chat (forged or
		// forwarded) is refused, even from an allowed user.
		other := tgtest.Group(-4001, "elsewhere")
		h.tg.AddChat(other)
		cq := h.tg.SendCallbackQuery(h.user, other, prompt.ID, data)
		if got := h.toast(cq); got != "This button belongs to another chat" {
			t.Errorf("toast = %q", got)
		}
		if n := len(h.answersOf(0)); n != 0 {
			t.Fatalf("a foreign press wrote %d answers", n)
		}
		h.toast(h.press(h.user, h.dm, prompt, "Approve"))
		h.awaitText(h.dm.ID, "tool allowed")
		// Unknown data (a token this bot never minted) is stale.
		if got := h.toast(h.tg.SendCallbackQuery(h.user, h.dm, prompt.ID, "a:forged-token")); got != "This request is no longer pending" {
			t.Errorf("forged toast = %q", got)
		}
	})
}

func TestApprovalSeveralPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			if tr.N > 1 {
				tr.Start("m")
				tr.Complete("second turn ran")
				return
			}
			tr.Start("m")
			var wg sync.WaitGroup
			res := make([]string, 2)
			for i, cmd := range []string{"make one", "make two"} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res[i] = decisionWord(tr.Ask(toolReq(t, []string{"p1", "p2"}[i], "Bash", map[string]any{"command": cmd})))
				}()
			}
			wg.Wait()
			<-release
			tr.Complete("one " + res[0] + ", two " + res[1])
		})
		h.say("both")
		one := h.awaitPrompt(h.dm.ID, "Approve", "make one")
		two := h.awaitPrompt(h.dm.ID, "Approve", "make two")
		// A message sent meanwhile waits in the queue; presses do not.
		h.say("after that")
		h.awaitText(h.dm.ID, "Queued")
		h.toast(h.press(h.user, h.dm, two, "Deny"))
		h.toast(h.press(h.user, h.dm, one, "Approve"))
		h.awaitResolved(h.dm.ID, one.ID, "Approved")
		h.awaitResolved(h.dm.ID, two.ID, "Denied")
		close(release)
		h.awaitText(h.dm.ID, "one allowed, two denied")
		h.awaitText(h.dm.ID, "second turn ran")
		got := map[string]bool{}
		for _, a := range h.answersOf(0) {
			got[a.RequestID] = a.Decision.Allow
		}
		if len(got) != 2 || !got["p1"] || got["p2"] {
			t.Errorf("answers by request id = %v", got)
		}
	})
}
