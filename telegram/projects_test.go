package telegram_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/runner/claudefiles"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// gitRepo makes a git repository at dir with one commit: a.txt (three
// lines) and notes.md.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	writeFile(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n")
	writeFile(t, filepath.Join(dir, "notes.md"), "# notes\n")
	runGit(t, dir, "init", "-q", "-b", "main")
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-q", "-m", "first")
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// resolved is dir with its links resolved (macOS's /tmp, say), as the bot
// and git name it.
func resolved(t *testing.T, dir string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestTurnFooterSaysWhatChanged: the final's footer says what the turn
// changed in the working directory's repository, measured by git: an edit
// that was uncommitted before the turn does not count; with /verbose it
// also gives the command that continues the session at the desk.
func TestTurnFooterSaysWhatChanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		repo := filepath.Join(resolved(t, t.TempDir()), "repo")
		gitRepo(t, repo)
		writeFile(t, filepath.Join(repo, "notes.md"), "# notes\nuncommitted before the turn\n")
		script := func(tr *enginetest.Turn) {
			tr.Start("fake-model")
			if strings.Contains(tr.Prompt, "edit") {
				// What Claude's tools would do: change one line, add a file.
				writeFile(t, filepath.Join(repo, "a.txt"), "one\nTWO\nthree\n")
				writeFile(t, filepath.Join(repo, "new.go"), "package x\n\nfunc X() {}\n")
			}
			tr.Complete("done: " + tr.Prompt)
		}
		h := newHarness(t, script, func(c *telegram.Config) { c.WorkDir = repo })

		h.say("edit please")
		final := h.awaitText(h.dm.ID, "done: edit please")
		if !strings.Contains(final.Text, "2 files changed, +4 −1") {
			t.Errorf("footer does not say what changed:\n%s", final.Text)
		}
		if strings.Contains(final.Text, "claude --resume") {
			t.Errorf("desk command without /verbose:\n%s", final.Text)
		}

		h.say("/verbose on")
		h.awaitText(h.dm.ID, "Verbose progress: on")
		h.say("just talk")
		final = h.awaitText(h.dm.ID, "done: just talk")
		if strings.Contains(final.Text, "changed") {
			t.Errorf("a turn that changed nothing says it did:\n%s", final.Text)
		}
		if want := "cd " + repo + " && claude --resume sess-1"; !strings.Contains(final.Text, want) {
			t.Errorf("verbose footer lacks %q:\n%s", want, final.Text)
		}
		h.say("/status")
		if st := h.awaitText(h.dm.ID, "Status"); !strings.Contains(st.Text, "At the desk: cd "+repo+" && claude --resume sess-1") {
			t.Errorf("/status lacks the desk command:\n%s", st.Text)
		}
	})
}

// TestDiffCommand: /diff lists the uncommitted files with their counts and
// shows the diff as code; /diff FILE only that file; a diff too long for
// a message comes as a .diff document after the summary.
func TestDiffCommand(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		repo := filepath.Join(resolved(t, t.TempDir()), "repo")
		gitRepo(t, repo)
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = repo })

		h.say("/diff")
		h.awaitText(h.dm.ID, "Uncommitted changes in "+repo+": none.")

		writeFile(t, filepath.Join(repo, "a.txt"), "one\nthree\n")
		writeFile(t, filepath.Join(repo, "new <file>.txt"), "hello\n")
		h.say("/diff")
		m := h.awaitText(h.dm.ID, "2 files changed, +1 −1")
		for _, want := range []string{"✏️ a.txt +0 −1", "🆕 new <file>.txt +1 −0", "-two", "+hello"} {
			if !strings.Contains(m.Text, want) {
				t.Errorf("/diff lacks %q:\n%s", want, m.Text)
			}
		}
		if !strings.Contains(m.Source, `<pre><code class="language-diff">`) || !strings.Contains(m.Source, "new &lt;file&gt;.txt") {
			t.Errorf("/diff is not code, or not escaped:\n%s", m.Source)
		}

		h.say("/diff a.txt")
		one := h.awaitText(h.dm.ID, "(a.txt): 1 file changed")
		if strings.Contains(one.Text, "hello") {
			t.Errorf("/diff a.txt shows another file:\n%s", one.Text)
		}

		var big strings.Builder
		for i := range 2000 {
			big.WriteString("line ")
			big.WriteString(strings.Repeat("x", i%50))
			big.WriteString("\n")
		}
		writeFile(t, filepath.Join(repo, "big.txt"), big.String())
		h.say("/diff big.txt")
		sum := h.awaitText(h.dm.ID, "(big.txt): 1 file changed, +2000 −0")
		doc := h.awaitText(h.dm.ID, "too long for a message")
		if doc.Document == nil || doc.Document.FileName != "big.txt.diff" || doc.ReplyTo != sum.ID {
			t.Fatalf("no .diff document answering the summary: %+v", doc)
		}
		data, _ := h.tg.FileData(doc.Document.FileID)
		if !strings.Contains(string(data), "+line xxxxx") {
			t.Errorf("document is not the diff: %.200q", data)
		}
	})
}

func TestDiffOutsideARepository(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("git is not installed")
		}
		dir := resolved(t, t.TempDir())
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = dir })
		h.say("/diff")
		h.awaitText(h.dm.ID, dir+" is not in a git repository")
		h.say("/branch x")
		h.awaitText(h.dm.ID, dir+" is not in a git repository")
	})
}

// TestClaudeCommandsPassThrough: a command the bot does not own goes to
// Claude Code as the prompt, as typed (a menu name back to the command's
// own name, "@bot" dropped); in a group only Claude Code's known commands
// and those naming the bot do, not another bot's. The chat's menu lists
// the project's commands after the bot's.
func TestClaudeCommandsPassThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := resolved(t, t.TempDir())
		writeFile(t, filepath.Join(dir, ".claude/commands/code-review.md"), "---\ndescription: Review the <diff>\n---\nReview $ARGUMENTS\n")
		writeFile(t, filepath.Join(dir, ".claude/commands/status.md"), "the bot's /status wins\n")
		writeFile(t, filepath.Join(dir, ".claude/skills/greet/SKILL.md"), "---\nname: greet\ndescription: Greets warmly\n---\n")
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = dir })
		h.eng.setClaudeDir(t.TempDir())

		for send, want := range map[string]string{
			"/compact":                    "Answer: /compact",
			"/code_review main.go":        "Answer: /code-review main.go",
			"/Greet@tgtest_bot":           "Answer: /greet",
			"/frobnicate now":             "Answer: /frobnicate now",
			"/code-review@tgtest_bot x y": "Answer: /code-review x y",
		} {
			h.say(send)
			h.awaitText(h.dm.ID, want)
		}
		menu := h.tg.ChatCommands(h.dm.ID)
		var names []string
		for _, c := range menu {
			names = append(names, c.Command)
			if c.Command == "code_review" && c.Description != "Claude Code: Review the <diff>" {
				t.Errorf("description %q", c.Description)
			}
		}
		got := strings.Join(names, " ")
		if !strings.HasPrefix(got, "new cancel status") || !strings.HasSuffix(got, "code_review greet") || strings.Count(got, "status") != 1 {
			t.Errorf("chat menu = %s", got)
		}

		g := tgtest.Supergroup(-100777, "team")
		h.tg.AddChat(g)
		h.tg.SendMessage(h.user, g, "/otherbots_command")
		h.tg.SendMessage(h.user, g, "/greet")
		h.awaitText(g.ID, "Answer: /greet")
		for _, m := range h.messages(g.ID) {
			if strings.Contains(m, "otherbots") {
				t.Errorf("another bot's command reached Claude: %q", m)
			}
		}
	})
}

// TestBranchWorktrees: /branch NAME makes a worktree beside the repository
// (inside the roots), moves the chat there with a fresh session, and
// /branch lists the worktrees with the chat's marked; an existing branch's
// worktree is reused; a worktree outside the roots is refused.
func TestBranchWorktrees(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := resolved(t, t.TempDir())
		repo := filepath.Join(root, "api")
		gitRepo(t, repo)
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = repo; c.ProjectRoots = []string{root} })

		h.say("hello")
		h.awaitText(h.dm.ID, "Answer: hello")
		h.say("/branch feature/login")
		wt := filepath.Join(root, "api.worktrees", "feature-login")
		h.awaitText(h.dm.ID, "New branch feature/login in a new worktree: "+wt)
		h.say("work there")
		h.awaitText(h.dm.ID, "Answer: work there")
		s := h.eng.starts()
		if last := s[len(s)-1]; last.WorkDir != wt || last.Resume != "" {
			t.Errorf("after /branch: start %+v, want a fresh session in %s", last, wt)
		}
		h.say("/branch")
		list := h.awaitText(h.dm.ID, "🌿 Worktrees")
		for _, want := range []string{"• main " + repo + " (main)", "▶ feature/login " + wt + " ← this chat"} {
			if !strings.Contains(list.Text, want) {
				t.Errorf("/branch lacks %q:\n%s", want, list.Text)
			}
		}
		h.say("/branch main")
		h.awaitText(h.dm.ID, "Branch main: "+repo+". This chat works there now")
		h.say("/branch main")
		h.awaitText(h.dm.ID, "This chat already works in main")
		h.say("/branch bad..name")
		h.awaitText(h.dm.ID, `"bad..name" is not a branch name git accepts`)
	})
}

func TestBranchOutsideRootsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		repo := filepath.Join(resolved(t, t.TempDir()), "api")
		gitRepo(t, repo)
		// The roots are the repository alone: beside it is outside.
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = repo })
		h.say("/branch feature")
		h.awaitText(h.dm.ID, "outside the directories this bot may work in")
		if _, err := os.Stat(filepath.Join(filepath.Dir(repo), "api.worktrees")); err == nil {
			t.Error("a worktree was made outside the roots")
		}
	})
}

// storeSession writes a session file where Claude Code keeps dir's
// sessions, with the given prompts, last written at when; its lines
// record dir as their cwd, as the CLI's do.
func storeSession(t *testing.T, configDir, dir, id string, when time.Time, prompts ...string) {
	t.Helper()
	storeSessionFrom(t, configDir, dir, dir, id, when, prompts...)
}

// storeSessionFrom writes a session that started in cwd into the folder
// of dir (the same folder when their names encode alike).
func storeSessionFrom(t *testing.T, configDir, dir, cwd, id string, when time.Time, prompts ...string) {
	t.Helper()
	var b strings.Builder
	for _, p := range prompts {
		b.WriteString(`{"type":"user","message":{"role":"user","content":"` + p + `"},"cwd":"` + cwd + `","sessionId":"` + id + `"}` + "\n")
		b.WriteString(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}` + "\n")
	}
	path := filepath.Join(claudefiles.SessionsDir(configDir, dir), id+".jsonl")
	writeFile(t, path, b.String())
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

// TestSessionsFromClaudeCodesStore: /sessions lists the sessions Claude
// Code keeps for the chat's directory, those started at the desk too
// (marked, with their first prompt and turns), newest first, without the
// sessions of other chats; a tap resumes one. A session written moments
// ago by another program asks first.
func TestSessionsFromClaudeCodesStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir, cfgDir := resolved(t, t.TempDir()), t.TempDir()
		bo := tgtest.User{ID: 4243, FirstName: "Bo"}
		other := tgtest.PrivateChat(bo)
		h := newHarness(t, echoScript, func(c *telegram.Config) {
			c.WorkDir, c.AllowedUsers = dir, []int64{4242, bo.ID}
		})
		h.eng.setClaudeDir(cfgDir)

		h.say("first in the chat")
		h.awaitText(h.dm.ID, "Answer: first in the chat")
		h.say("/new")
		h.awaitText(h.dm.ID, "Fresh start")
		h.say("second in the chat")
		h.awaitText(h.dm.ID, "Answer: second in the chat") // sess-2, current
		storeSession(t, cfgDir, dir, "sess-1", time.Now().Add(-3*time.Hour), "first in the chat")
		storeSession(t, cfgDir, dir, "sess-2", time.Now(), "second in the chat")
		storeSession(t, cfgDir, dir, "desk-0001", time.Now().Add(-time.Hour), "refactor the <parser>", "now the tests", "and docs")
		storeSession(t, cfgDir, dir, "desk-0002", time.Now().Add(-5*time.Second), "live in a terminal")

		h.say("/sessions")
		list := h.awaitText(h.dm.ID, "Claude Code's sessions, newest first")
		for _, want := range []string{
			"Current: second in the chat",
			"1. live in a terminal · 1 turn · just now · 🖥 not from this chat",
			"2. refactor the <parser> · 3 turns · 1 hour ago · 🖥 not from this chat",
			"3. first in the chat · 1 turn · 3 hours ago\n",
		} {
			if !strings.Contains(list.Text, want) {
				t.Errorf("list lacks %q:\n%s", want, list.Text)
			}
		}
		if len(list.Keyboard) != 3 {
			t.Errorf("buttons %v", buttonTexts(list))
		}

		// Another chat in the same directory does not see this chat's sessions.
		h.tg.SendMessage(bo, other, "/sessions")
		olist := h.awaitText(other.ID, "Sessions of this chat")
		if strings.Contains(olist.Text, "in the chat") || !strings.Contains(olist.Text, "refactor the <parser>") {
			t.Errorf("other chat's list:\n%s", olist.Text)
		}

		// Written 5 seconds ago: the tap asks before resuming.
		if got := h.toast(h.press(h.user, h.dm, list, "1. live in a terminal")); got != "It may be open elsewhere: confirm below" {
			t.Errorf("toast %q", got)
		}
		warn := h.awaitText(h.dm.ID, "by another program: it may be open in a terminal")
		if h.toast(h.press(h.user, h.dm, warn, "Cancel")) != "Not resumed" {
			t.Error("cancel toast")
		}
		h.awaitResolved(h.dm.ID, warn.ID, "Not resumed")

		h.say("/sessions")
		list = h.awaitAfter(h.dm.ID, warn.ID, "2. refactor the <parser>")
		if got := h.toast(h.press(h.user, h.dm, list, "2. refactor the")); got != "Switched" {
			t.Errorf("toast %q", got)
		}
		h.say("go on")
		h.awaitText(h.dm.ID, "Answer: go on")
		s := h.eng.starts()
		if last := s[len(s)-1]; last.Resume != "desk-0001" || last.WorkDir != dir {
			t.Errorf("start %+v, want a resume of desk-0001 in %s", last, dir)
		}

		// Confirmed: the session written moments ago is resumed.
		storeSession(t, cfgDir, dir, "desk-0002", time.Now(), "live in a terminal")
		h.say("/sessions")
		list = h.awaitAfter(h.dm.ID, list.ID, "live in a terminal · 1 turn · just now")
		h.press(h.user, h.dm, list, "live in a terminal")
		warn = h.awaitAfter(h.dm.ID, list.ID, "by another program")
		h.toast(h.press(h.user, h.dm, warn, "Resume anyway"))
		h.awaitResolved(h.dm.ID, warn.ID, "Switched to live in a terminal")
		h.say("carry on")
		h.awaitText(h.dm.ID, "Answer: carry on")
		if s := h.eng.starts(); s[len(s)-1].Resume != "desk-0002" {
			t.Errorf("confirmed resume: start %+v", s[len(s)-1])
		}
	})
}

// awaitAfter waits for a bot message newer than after whose text contains want.
func (h *harness) awaitAfter(chatID int64, after int, want string) tgtest.Message {
	h.t.Helper()
	return h.tg.AwaitMessage(wait, chatID, func(m tgtest.Message) bool { return m.ID > after && strings.Contains(m.Text, want) })
}

// TestSessionContinuedAtTheDesk: when the chat's live session got prompts
// from another Claude Code since the bot's last turn (the owner went on at
// the desk), the bot does not write on with its stale process: it resumes
// the session afresh, with the desk's history, and says so. Lines the CLI
// adds after its own result do not count.
func TestSessionContinuedAtTheDesk(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir, cfgDir := resolved(t, t.TempDir()), t.TempDir()
		file := func(id string) string { return filepath.Join(claudefiles.SessionsDir(cfgDir, dir), id+".jsonl") }
		appendLine := func(id, line string) {
			if err := os.MkdirAll(filepath.Dir(file(id)), 0o755); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(file(id), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(line + "\n"); err != nil {
				t.Fatal(err)
			}
		}
		prompt := func(text string) string {
			return `{"type":"user","message":{"role":"user","content":"` + text + `"}}`
		}
		// The fake CLI writes its transcript like the real one.
		script := func(tr *enginetest.Turn) {
			appendLine(tr.Session().SessionID(), prompt(tr.Prompt))
			tr.Start("fake-model")
			tr.Complete("Answer: " + tr.Prompt)
		}
		h := newHarness(t, script, func(c *telegram.Config) { c.WorkDir = dir })
		h.eng.setClaudeDir(cfgDir)

		h.say("one")
		h.awaitText(h.dm.ID, "Answer: one")
		synctest.Wait()
		appendLine("sess-1", `{"type":"last-prompt","lastPrompt":"one"}`) // written after the result
		h.say("two")
		h.awaitText(h.dm.ID, "Answer: two")
		if n := len(h.eng.starts()); n != 1 {
			t.Fatalf("%d starts: the CLI's own trailing lines were taken for the desk", n)
		}

		synctest.Wait() // the bot has noted the file after its turn
		appendLine("sess-1", prompt("at the desk"))
		h.say("three")
		h.awaitText(h.dm.ID, "This session was continued elsewhere")
		h.awaitText(h.dm.ID, "Answer: three")
		s := h.eng.starts()
		if len(s) != 2 || s[1].Resume != "sess-1" {
			t.Errorf("starts %+v: want a fresh process resuming sess-1", s)
		}
	})
}

// TestCommandFilesThatBlockStallNothing: a FIFO (and a link to /dev/ptmx)
// among the project's command files. Before, reading them on the polling
// loop froze the bot after the first unknown command: no chat was
// answered again, /cancel included; a session start (the menu) hung the
// same way. Now they are skipped, and the project's real commands still
// pass, in a private chat and in a group.
func TestCommandFilesThatBlockStallNothing(t *testing.T) {
	dir := resolved(t, t.TempDir())
	writeFile(t, filepath.Join(dir, ".claude/commands/code-review.md"), "---\ndescription: Review\n---\nReview\n")
	var fifos []string
	for _, p := range []string{".claude/commands/stuck.md", ".claude/skills/stuck/SKILL.md"} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		fifos = append(fifos, p)
	}
	if err := os.Symlink("/dev/ptmx", filepath.Join(dir, ".claude/commands/tty.md")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // free a reader the old code left blocked
		for _, p := range fifos {
			if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
	})
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = dir })
		h.eng.setClaudeDir(t.TempDir())
		g := tgtest.Supergroup(-100778, "team")
		h.tg.AddChat(g)
		// The group's first message: the list is read in the background.
		h.tg.SendMessage(h.user, g, "/code_review now")
		h.awaitText(g.ID, "Answer: /code-review now")
		h.say("/compact")
		h.awaitText(h.dm.ID, "Answer: /compact")
		h.say("/code_review x")
		h.awaitText(h.dm.ID, "Answer: /code-review x")
		h.say("/status")
		h.awaitText(h.dm.ID, "Model")
		for _, c := range h.tg.ChatCommands(h.dm.ID) {
			if c.Command == "stuck" || c.Command == "tty" {
				t.Errorf("a file that is no regular file is in the menu: %+v", c)
			}
		}
	})
}
