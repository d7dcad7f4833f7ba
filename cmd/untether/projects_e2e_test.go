package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/runner/claudefiles"
	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/telegram/tgtest"
)

// realClaudeHome is realClaude that also returns the CLI's HOME, where its
// session store is.
func realClaudeHome(t *testing.T, claudeTOML string, steps ...claudetest.Step) (*e2eEnv, *claudetest.API, string) {
	t.Helper()
	bin := claudetest.Binary(t)
	api := claudetest.NewAPI(t, steps...)
	env, home := claudetest.Env(t, api.URL())
	e := newE2EOn(t, tgtest.New(t), bin, env, "use_api_billing = true\n"+claudeTOML, "")
	return e, api, home
}

// awaitNew waits for a bot message newer than after that contains want.
// The progress message quotes Claude's latest text (“Wrote it.”) while the
// turn runs, and may get there before the answer: it does not count.
func (e *e2eEnv) awaitNew(after int, want string) tgtest.Message {
	return e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool {
		return m.ID > after && answerHas(m, want)
	})
}

// TestContractBotHandOffFromTheDesk: a session started with the real CLI
// in a terminal (here: run directly, as the owner would) is listed by
// /sessions from Claude Code's own store, and a tap resumes it in the
// chat: the model gets the desk conversation with the next prompt. /status
// gives the command that continues it at the desk again.
func TestContractBotHandOffFromTheDesk(t *testing.T) {
	e, api, home := realClaudeHome(t, "", claudetest.Say("Answer at the desk."), claudetest.Say("Answer from the phone."))
	work := filepath.Join(e.dir, "work")
	desk := exec.Command(e.claude, "-p", "first prompt at the desk")
	desk.Dir, desk.Env = work, e.env
	if out, err := desk.CombinedOutput(); err != nil || !strings.Contains(string(out), "Answer at the desk.") {
		t.Fatalf("claude at the desk: %v\n%s", err, out)
	}
	list, err := claudefiles.ListSessions(context.Background(), nil, filepath.Join(home, ".claude"), work, 0)
	if err != nil || len(list) != 1 {
		t.Fatalf("the desk session is not in the store: %+v %v", list, err)
	}
	id := list[0].ID
	// Written a minute ago: not open in a terminal now (the warning for
	// one that is has its own test, TestSessionsFromClaudeCodesStore).
	path := filepath.Join(claudefiles.SessionsDir(filepath.Join(home, ".claude"), work), id+".jsonl")
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}

	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "/sessions")
	msg := e.awaitNew(0, "Claude Code's sessions")
	if !strings.Contains(msg.Text, "1. first prompt at the desk · 1 turn · 1 minute ago · 🖥 not from this chat") {
		t.Errorf("/sessions:\n%s", msg.Text)
	}
	cq := e.tg.PressButton(e.user, e.chat, msg.ID, buttonData(t, msg, "first prompt at the desk"))
	e.tg.Await(60*time.Second, "the press's answer", func() bool { _, ok := e.tg.CallbackAnswer(cq); return ok })

	e.tg.SendMessage(e.user, e.chat, "and now from the phone")
	final := e.awaitNew(msg.ID, "Answer from the phone.")
	reqs := api.Requests()
	history := strings.Join(reqs[len(reqs)-1].UserTexts(), "\n")
	if !strings.Contains(history, "first prompt at the desk") || !strings.Contains(history, "and now from the phone") {
		t.Errorf("the resumed turn does not carry the desk conversation:\n%s", history)
	}
	e.tg.SendMessage(e.user, e.chat, "/status")
	status := e.awaitNew(final.ID, "Status")
	if want := "At the desk: cd " + work + " && claude --resume " + id; !strings.Contains(status.Text, want) {
		t.Errorf("/status lacks %q:\n%s", want, status.Text)
	}
}

// TestContractBotChangesDiffAndBranch: in a git repository made by the
// test, the real CLI writes a file; the final's footer says what changed
// (measured by git), /diff shows it, and /branch moves the chat into a new
// worktree, where the next turn's CLI works.
func TestContractBotChangesDiffAndBranch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	e, api, _ := realClaudeHome(t, "permission_mode = \"acceptEdits\"\nproject_roots = [\".\"]\n")
	work := filepath.Join(e.dir, "work")
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "first")
	api.Append(
		claudetest.Answer(claudetest.ToolUse("Write", map[string]any{"file_path": filepath.Join(work, "new.txt"), "content": "hello\nworld\n"})),
		claudetest.Say("Wrote it."),
	)

	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "write new.txt")
	final := e.awaitNew(0, "Wrote it.")
	if !strings.Contains(final.Text, "1 file changed, +2 −0") {
		t.Errorf("footer:\n%s", final.Text)
	}
	e.tg.SendMessage(e.user, e.chat, "/diff")
	diff := e.awaitNew(final.ID, "Uncommitted changes")
	if !strings.Contains(diff.Text, "🆕 new.txt +2 −0") || !strings.Contains(diff.Text, "+world") {
		t.Errorf("/diff:\n%s", diff.Text)
	}

	e.tg.SendMessage(e.user, e.chat, "/branch feature")
	wt := filepath.Join(e.dir, "work.worktrees", "feature")
	moved := e.awaitNew(diff.ID, "New branch feature in a new worktree: "+wt)
	before := len(api.Requests())
	e.tg.SendMessage(e.user, e.chat, "hello in the worktree")
	// A quick turn sends no progress message (so no "done" summary): wait
	// for the model call of this turn instead, then for its answer.
	e.tg.Await(60*time.Second, "the worktree turn's model call", func() bool { return len(api.Requests()) > before })
	e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool { return m.ID > moved.ID && m.ReplyTo != 0 })
	reqs := api.Requests()
	if !strings.Contains(reqs[len(reqs)-1].AllText(), "Primary working directory: "+wt) {
		t.Errorf("the CLI did not work in the worktree %s", wt)
	}
	if _, err := os.Stat(filepath.Join(wt, "a.txt")); err != nil {
		t.Errorf("worktree: %v", err)
	}
}
