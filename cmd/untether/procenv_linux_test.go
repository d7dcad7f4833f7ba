package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/telegram/tgtest"
)

// nobody is the user the bot and its neighbours run as when the test runs
// as root: root may read any process, so the check needs another user.
const nobody = 65534

// TestProcessEnvironHiddenFromSameUser: the real bot, holding its token in
// $UNTETHER_BOT_TOKEN, is running; another process of the same user (what
// a command Claude runs is) cannot read its environment, memory map or
// open files. Its command line stays readable, and holds no secret. Before
// the bot made itself non-dumpable, cat printed the token.
func TestProcessEnvironHiddenFromSameUser(t *testing.T) {
	b := startNeighbourBot(t, tgtest.New(t), "/bin/true", nil, "")
	proc := fmt.Sprintf("/proc/%d/", b.pid)
	cmdline, err := neighbourRun(t, "cat", proc+"cmdline")
	if err != nil || !strings.Contains(cmdline, "run\x00--config\x00"+b.config) {
		t.Fatalf("the neighbour cannot read the bot's command line (%v): %q", err, cmdline)
	}
	if strings.Contains(cmdline, b.tg.Token()) {
		t.Errorf("the bot's command line holds the token: %q", cmdline)
	}
	for _, c := range [][]string{{"cat", proc + "environ"}, {"ls", proc + "fd"}, {"cat", proc + "maps"}} {
		got, err := neighbourRun(t, c...)
		if err == nil || strings.Contains(got, b.tg.Token()) || !strings.Contains(got, "Permission denied") {
			t.Errorf("%s: the neighbour got %q (%v), want Permission denied", strings.Join(c, " "), got, err)
		}
	}
}

// TestContractBotEnvironHiddenFromClaude: the real CLI, started by the
// real bot as an ordinary user, runs a turn as usual (the bot being
// non-dumpable changes nothing for it) and its Bash tool, walking up to
// the bot's process, cannot read the bot's environment.
func TestContractBotEnvironHiddenFromClaude(t *testing.T) {
	claude := claudetest.Binary(t)
	tg := tgtest.New(t)
	// Walk up from the tool's shell to the bot, then read its environment.
	walk := `p=$$; while [ "$p" -gt 1 ] && [ "$(cat /proc/$p/comm)" != untether ]; do p=$(cut -d' ' -f4 /proc/$p/stat); done; ` +
		`echo "bot=$p uid=$(id -u)"; cat /proc/$p/environ; echo "rc=$?"`
	api := claudetest.NewAPI(t,
		claudetest.Answer(claudetest.ToolUse("Bash", map[string]any{"command": walk, "description": "Read the bot's environment"})),
		claudetest.Say("Done."),
	)
	env, _ := claudetest.Env(t, api.URL())
	b := startNeighbourBot(t, tg, claude, env, "use_api_billing = true\nallowed_tools = [\"Bash\"]\n")
	tg.SendMessage(b.user, tgtest.PrivateChat(b.user), "Read the bot's environment.")
	tg.AwaitMessage(90*time.Second, b.user.ID, func(m tgtest.Message) bool { return answerHas(m, "Done.") })

	var out string
	for _, req := range api.Requests() {
		for _, tr := range req.ToolResults() {
			out += tr.Content
		}
	}
	if !strings.Contains(out, fmt.Sprintf("bot=%d ", b.pid)) || !strings.Contains(out, "rc=1") {
		t.Fatalf("the tool did not reach the bot's process: %q", out)
	}
	if strings.Contains(out, b.tg.Token()) || !strings.Contains(out, "Permission denied") {
		t.Errorf("the tool read the bot's environment: %q", out)
	}
	if os.Geteuid() == 0 && !strings.Contains(out, fmt.Sprintf("uid=%d", nobody)) {
		t.Errorf("the tool ran as another user than the bot: %q", out)
	}
}

// neighbourBot is the real bot running as nobody (as the test's user when
// that is not root), in a folder of its own, with its token in
// $UNTETHER_BOT_TOKEN.
type neighbourBot struct {
	tg     *tgtest.Server
	pid    int
	config string
	user   tgtest.User
}

// startNeighbourBot starts the bot with claude as [claude] binary (linked
// into the bot's folder: go test's folders and /root are closed to nobody),
// env added to its environment and claudeTOML in its [claude] table, and
// returns once it polls Telegram.
func startNeighbourBot(t *testing.T, tg *tgtest.Server, claude string, env []string, claudeTOML string) *neighbourBot {
	t.Helper()
	if !strings.Contains(claudeTOML, "durable") {
		// The test finds the bot as Claude's parent: no holder between.
		claudeTOML = "durable = false\n" + claudeTOML
	}
	dir, err := os.MkdirTemp("", "untether-procenv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "untether")
	if out, err := exec.Command("cp", untetherBinary(t), bin).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	if claude != "/bin/true" {
		real, err := filepath.EvalSymlinks(claude)
		if err != nil {
			t.Fatal(err)
		}
		claude = filepath.Join(dir, "claude")
		if err := os.Link(real, claude); err != nil {
			if out, err := exec.Command("cp", real, claude).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v\n%s", err, out)
			}
		}
	}
	work, home := filepath.Join(dir, "work"), filepath.Join(dir, "home")
	for _, d := range []string{work, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b := &neighbourBot{tg: tg, config: filepath.Join(dir, "untether.toml"), user: tgtest.User{ID: 5150, FirstName: "Op"}}
	cfg := fmt.Sprintf(`[telegram]
api_url = %q
allowed_user_ids = [%d]
poll_timeout = "1s"

[claude]
binary = %q
working_dir = %q
idle_timeout = "0s"
%s
[state]
path = %q
`, tg.URL(), b.user.ID, claude, work, claudeTOML, filepath.Join(dir, "state.db"))
	if err := os.WriteFile(b.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		for _, p := range []string{dir, bin, work, home, b.config} {
			if err := os.Chown(p, nobody, nobody); err != nil {
				t.Fatal(err)
			}
		}
	}

	cmd := asNeighbour(exec.Command(bin, "run", "--config", b.config))
	cmd.Dir = dir
	cmd.Env = append(env, "HOME="+home, "PATH="+os.Getenv("PATH"), "UNTETHER_BOT_TOKEN="+tg.Token(), "GORACE=atexit_sleep_ms=0")
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		if errors.Is(err, fs.ErrPermission) {
			t.Skipf("cannot start a process as uid %d here (%v): the test needs root or a normal user", nobody, err)
		}
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := <-done; err != nil {
			t.Errorf("bot: %v", err)
		}
		if t.Failed() {
			t.Logf("bot output:\n%s", out.String())
		}
	})
	b.pid = cmd.Process.Pid
	// Polling Telegram, the bot is past its start.
	tg.AwaitCall(30*time.Second, "getUpdates", nil)
	return b
}

// asNeighbour runs cmd as nobody when the test runs as root, else as the
// test's own user.
func asNeighbour(cmd *exec.Cmd) *exec.Cmd {
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	return cmd
}

// neighbourRun runs a command as the bot's user and returns its output.
func neighbourRun(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := asNeighbour(exec.Command(args[0], args[1:]...))
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}
