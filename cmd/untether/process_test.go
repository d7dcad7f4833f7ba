package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sshhost "github.com/untether/untether/host/ssh"
	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/telegram/tgtest"
)

func TestMain(m *testing.M) {
	// The test binary is the agent of the SSH hosts doctor reaches, as
	// untether is in production.
	if len(os.Args) > 1 && os.Args[1] == "host-agent" {
		os.Exit(sshhost.AgentMain(os.Args[2:]))
	}
	// The test binary doubles as a scripted fake claude for the bot processes.
	claudetest.RunFakeCLIIfRequested()
	code := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	builtBin  string
	builtDir  string
	buildErr  error
)

// untetherBinary builds the command once per test run.
func untetherBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		builtDir, buildErr = os.MkdirTemp("", "untether-bin-")
		if buildErr != nil {
			return
		}
		builtBin = filepath.Join(builtDir, "untether")
		out, err := exec.Command("go", "build", "-race", "-o", builtBin, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// botProcess is the real untether binary running against a fake Telegram.
type botProcess struct {
	t       *testing.T
	cmd     *exec.Cmd
	out     *syncBuffer
	done    chan struct{}
	exitErr error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type e2eEnv struct {
	tg     *tgtest.Server
	dir    string
	config string
	user   tgtest.User
	chat   tgtest.Chat
	env    []string
	claude string
}

// newE2E writes a config pointing at a fake Telegram and the given claude.
func newE2E(t *testing.T, claude string, env []string, extraTOML string) *e2eEnv {
	t.Helper()
	return newE2EOn(t, tgtest.New(t), claude, env, "", extraTOML)
}

// newE2EOn is newE2E on a given fake Telegram; claudeTOML lines go into
// the [claude] table, extraTOML after the last table.
func newE2EOn(t *testing.T, tg *tgtest.Server, claude string, env []string, claudeTOML, extraTOML string) *e2eEnv {
	t.Helper()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	e := &e2eEnv{tg: tg, dir: dir, user: tgtest.User{ID: 5150, FirstName: "Op", Username: "op"}, env: env, claude: claude}
	e.chat = tgtest.PrivateChat(e.user)
	e.config = filepath.Join(dir, "untether.toml")
	if !strings.Contains(claudeTOML, "durable") {
		// A stopped test bot must not leave its Claude held behind, still
		// writing into the test's folders: only durable tests hold it.
		// First: claudeTOML may end in a sub-table ([claude.env]).
		claudeTOML = "durable = false\n" + claudeTOML
	}
	cfg := fmt.Sprintf(`[telegram]
bot_token = %q
api_url = %q
allowed_user_ids = [%d]
poll_timeout = "1s"

[claude]
binary = %q
working_dir = %q
idle_timeout = "0s"
%s
[progress]
min_edit_interval = "100ms"
group_edit_interval = "200ms"
%s
`, tg.Token(), tg.URL(), e.user.ID, claude, work, claudeTOML, extraTOML)
	if err := os.WriteFile(e.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *e2eEnv) start(t *testing.T) *botProcess {
	t.Helper()
	cmd := exec.Command(untetherBinary(t), "run", "--config", e.config, "--log-level", "debug")
	cmd.Env = append(append([]string{}, e.env...), "GORACE=atexit_sleep_ms=0")
	p := &botProcess{t: t, cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exitErr = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		// Stop it as a service manager would: a killed bot leaves its
		// Claude processes behind, still writing into the test's folders
		// while they are removed ("directory not empty").
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-p.done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				<-p.done
			}
		}
		if t.Failed() {
			t.Logf("bot output:\n%s", p.out.String())
		}
	})
	return p
}

func (p *botProcess) signal(sig syscall.Signal) {
	_ = p.cmd.Process.Signal(sig)
}

func (p *botProcess) wait(d time.Duration) error {
	select {
	case <-p.done:
		return p.exitErr
	case <-time.After(d):
		p.t.Fatalf("bot did not exit within %v", d)
		return nil
	}
}

// fakeClaudeEnv makes the bot start this test binary as claude.
func fakeClaudeEnv(script string) []string {
	env := []string{claudetest.FakeCLIEnvFor(script)}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	return env
}

func testExecutable(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestProcessRunAnswerAndSIGTERM(t *testing.T) {
	e := newE2E(t, testExecutable(t), fakeClaudeEnv("echo"), "")
	p := e.start(t)
	id := e.tg.SendMessage(e.user, e.chat, "hello bot")
	final := e.tg.AwaitMessage(30*time.Second, e.chat.ID, func(m tgtest.Message) bool {
		return answerHas(m, "echo: hello bot") && m.ReplyTo == id
	})
	if final.ID == 0 {
		t.Fatal("no final")
	}
	if strings.Contains(p.out.String(), e.tg.Token()) {
		t.Error("the bot token appears in the log")
	}
	p.signal(syscall.SIGTERM)
	if err := p.wait(20 * time.Second); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}

func TestProcessBadConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bad.toml")
	os.WriteFile(cfg, []byte("[telegram]\nbot_token = \"1:x\"\nallowed_user_ids = [1]\nsurprise = 1\n"), 0o600)
	out, err := exec.Command(untetherBinary(t), "run", "--config", cfg).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "surprise") || !strings.Contains(string(out), cfg) {
		t.Fatalf("want an error naming the key and file, got %v:\n%s", err, out)
	}
	out, err = exec.Command(untetherBinary(t), "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "untether ") {
		t.Fatalf("version: %v %s", err, out)
	}
}

func TestProcessOneShotMode(t *testing.T) {
	e := newE2EOn(t, tgtest.New(t), testExecutable(t), fakeClaudeEnv("echo"), "mode = \"oneshot\"\n", "")
	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "first")
	e.tg.AwaitMessage(30*time.Second, e.chat.ID, func(m tgtest.Message) bool {
		return answerHas(m, "oneshot: first (stdin tty=true)")
	})
	e.tg.SendMessage(e.user, e.chat, "second")
	e.tg.AwaitMessage(30*time.Second, e.chat.ID, func(m tgtest.Message) bool {
		return answerHas(m, "oneshot: second (stdin tty=true)")
	})
}

// answerHas says whether the bot's message m contains s as itself, not as
// the running progress message's quote of Claude's latest text (“s”),
// which can reach the chat before the answer does.
func answerHas(m tgtest.Message, s string) bool {
	return strings.Contains(m.Text, s) && !strings.Contains(m.Text, "“"+s)
}
