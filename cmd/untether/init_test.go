package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/telegram/tgtest"
)

const initWait = 60 * time.Second // the bound of every wait on init in these tests

// initEnv is a fresh machine: a fake Telegram, a fake claude on a short
// PATH, an empty home, no config.
type initEnv struct {
	tg     *tgtest.Server
	dir    string
	config string
	work   string
	claude string
	owner  tgtest.User
}

func newInitEnv(t *testing.T) *initEnv {
	t.Helper()
	dir := t.TempDir()
	e := &initEnv{tg: tgtest.New(t), dir: dir, config: filepath.Join(dir, "home", ".untether", "untether.toml"),
		work: filepath.Join(dir, "project"), owner: tgtest.User{ID: 5150, FirstName: "Op", Username: "op"}}
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{bin, e.work, filepath.Join(dir, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The test binary is the fake CLI; the script makes it one whoever
	// starts it (init, doctor, the bot), whatever their environment.
	e.claude = writeScript(t, bin, "claude", "UNTETHER_FAKE_CLAUDE=${UNTETHER_FAKE_CLAUDE:-echo} exec "+testExecutable(t)+` "$@"`)
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv(envBotToken, "")
	t.Setenv(envConfigPath, "")
	return e
}

// start runs init in-process with stdin and the flags; the result comes on
// the channel.
func (e *initEnv) start(t *testing.T, stdin string, args ...string) (<-chan error, *syncBuffer) {
	t.Helper()
	out := &syncBuffer{}
	done := make(chan error, 1)
	args = append([]string{"--config", e.config, "--api-url", e.tg.URL()}, args...)
	go func() { done <- cmdInit(context.Background(), args, strings.NewReader(stdin), out) }()
	return done, out
}

// sayWhenAsked sends the owner's message once init has set aside what
// reached the bot before it asked (its getUpdates with offset -1).
func (e *initEnv) sayWhenAsked(t *testing.T, from tgtest.User) {
	t.Helper()
	e.tg.AwaitCall(initWait, "getUpdates", func(c tgtest.Call) bool { return c.Param("offset") == "-1" })
	e.tg.SendMessage(from, tgtest.PrivateChat(from), "hello")
}

func wait(t *testing.T, done <-chan error, out *syncBuffer) error {
	t.Helper()
	select {
	case err := <-done:
		t.Logf("untether init:\n%s", out.String())
		return err
	case <-time.After(initWait):
		t.Fatalf("init did not finish within %v:\n%s", initWait, out.String())
		return nil
	}
}

// A new user types the token and the directory; init learns their id from
// the message they send, writes a config the doctor passes and answers
// them in Telegram.
func TestInitStdinAnswers(t *testing.T) {
	e := newInitEnv(t)
	stranger := tgtest.User{ID: 666, FirstName: "Mallory"}
	e.tg.SendMessage(stranger, tgtest.PrivateChat(stranger), "let me in") // before init asked: no answer to it
	done, out := e.start(t, e.tg.Token()+"\n"+e.work+"\n")
	e.sayWhenAsked(t, e.owner)
	if err := wait(t, done, out); err != nil {
		t.Fatalf("init: %v", err)
	}
	text := out.String()
	for _, want := range []string{
		"untether init writes " + e.config,
		"@BotFather", "Paste the token BotFather sent (it is not shown): \n",
		"✓ The token works: the bot is @tgtest_bot",
		"Send any message to @tgtest_bot from the account that will use it",
		"✓ Message from Op (@op, id 5150): only this account may use the bot.",
		"✓ Claude Code 0.0.0-fake: " + e.claude,
		"Directory [", "]: " + e.work + "\n",
		"✓ Wrote " + e.config + " (mode 0600",
		"All 8 checks passed.",
		"Start the bot:\n  ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(text, e.tg.Token()) {
		t.Error("the token was echoed")
	}
	if _, start, _ := strings.Cut(text, "Start the bot:\n"); strings.Contains(start, "--config") {
		t.Errorf("the config is in the default place, yet: %s", start)
	}
	cfg := e.checkConfig(t)
	if cfg.Claude.Binary != e.claude || cfg.Claude.WorkingDir != e.work {
		t.Errorf("claude %q in %q", cfg.Claude.Binary, cfg.Claude.WorkingDir)
	}
	e.tg.AwaitMessage(initWait, e.owner.ID, func(m tgtest.Message) bool { return answerHas(m, "untether is set up") })
	if n := len(e.tg.Messages(stranger.ID)); n != 0 {
		t.Errorf("the stranger got %d messages", n)
	}
	if n := e.tg.PendingUpdates(); n != 0 {
		t.Errorf("%d updates left for the bot: it would run the owner's hello as a prompt", n)
	}
}

// checkConfig loads what init wrote: mode 0600, the example's comments,
// the token and the owner.
func (e *initEnv) checkConfig(t *testing.T) *Config {
	t.Helper()
	info, err := os.Stat(e.config)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("config mode %v", info.Mode().Perm())
	}
	raw, _ := os.ReadFile(e.config)
	for _, comment := range []string{"# Let any Telegram user run Claude on this machine. Dangerous; leave false.",
		"# Deny a pending approval request nobody answered within this time.", "written by untether init"} {
		if !strings.Contains(string(raw), comment) {
			t.Errorf("the config lacks the comment %q", comment)
		}
	}
	cfg, err := loadConfig(e.config, func(string) string { return "" })
	if err != nil {
		t.Fatalf("the written config does not load: %v\n%s", err, raw)
	}
	if cfg.Telegram.BotToken.Reveal() != e.tg.Token() || !slices.Equal(cfg.Telegram.AllowedUserIDs, []int64{e.owner.ID}) ||
		cfg.Telegram.APIURL != e.tg.URL() {
		t.Errorf("telegram: users %v, api %q, token right: %v", cfg.Telegram.AllowedUserIDs, cfg.Telegram.APIURL,
			cfg.Telegram.BotToken.Reveal() == e.tg.Token())
	}
	return cfg
}

// With the token in the environment and the rest in flags, init needs no
// terminal and no input (the built command, stdin /dev/null); the bot
// then starts from the config it wrote and answers the owner.
func TestInitFlagsOnlyThenTheBotAnswers(t *testing.T) {
	untether := untetherBinary(t) // with go on PATH
	e := newInitEnv(t)
	e.config = filepath.Join(e.dir, "etc", "bot.toml")
	cmd := exec.Command(untether, "init", "--config", e.config, "--api-url", e.tg.URL(), "--dir", e.work, "--wait", "1m")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), envBotToken + "=" + e.tg.Token(), "GORACE=atexit_sleep_ms=0"}
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	e.sayWhenAsked(t, e.owner)
	if err := wait(t, done, out); err != nil {
		t.Fatalf("init: %v", err)
	}
	if text := out.String(); !strings.Contains(text, "Bot token: from $"+envBotToken) || strings.Contains(text, e.tg.Token()) ||
		!strings.Contains(text, "All 8 checks passed.") || !strings.Contains(text, " --config "+e.config+"\n") {
		t.Errorf("output: %s", text)
	}
	e.checkConfig(t)

	bot := &e2eEnv{tg: e.tg, config: e.config, user: e.owner, chat: tgtest.PrivateChat(e.owner),
		env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}}
	p := bot.start(t)
	t.Cleanup(func() {
		// The config init writes holds Claude through restarts (durable):
		// stop the bot, then end what it left held.
		p.signal(syscall.SIGTERM)
		_ = p.wait(30 * time.Second)
		endHeld(t, filepath.Join(filepath.Dir(e.config), "untether.db"))
	})
	id := e.tg.SendMessage(e.owner, bot.chat, "first question")
	e.tg.AwaitMessage(initWait, e.owner.ID, func(m tgtest.Message) bool {
		return answerHas(m, "echo: first question") && m.ReplyTo == id
	})
	if strings.Contains(strings.Join(botTexts(e.tg, e.owner.ID), "\n"), "echo: hello") {
		t.Error("the bot ran the message sent to init as a prompt")
	}
	// What runs: in the log at start, and in /status.
	// The version depends on how Go stamped the build (clone, -buildvcs,
	// dirty tree): computed from the binary's own build info.
	version := builtVersion(t, untether)
	if log := p.out.String(); !strings.Contains(log, " claude_version=0.0.0-fake") || !strings.Contains(log, " "+slogValue("version", version)+" ") {
		t.Errorf("the start line lacks the versions (want untether %s):\n%s", version, log)
	}
	e.tg.SendMessage(e.owner, bot.chat, "/status")
	e.tg.AwaitMessage(initWait, e.owner.ID, func(m tgtest.Message) bool {
		return answerHas(m, "Versions: untether "+version+" · Claude Code 0.0.0-fake")
	})
	p.signal(syscall.SIGTERM)
	if err := p.wait(initWait); err != nil {
		t.Fatalf("bot exit: %v", err)
	}
}

func botTexts(tg *tgtest.Server, chat int64) []string {
	var out []string
	for _, m := range tg.Messages(chat) {
		out = append(out, m.Text)
	}
	return out
}

// A token Telegram does not know stops init before anything is written,
// with the fix; the token is not repeated.
func TestInitRejectedToken(t *testing.T) {
	e := newInitEnv(t)
	bad := "7000000001:AAwrong-token-for-init"
	t.Setenv(envBotToken, bad)
	done, out := e.start(t, "")
	err := wait(t, done, out)
	if err == nil || !strings.Contains(err.Error(), "Telegram rejected it (getMe: 401 Unauthorized)") ||
		!strings.Contains(err.Error(), "@BotFather") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(out.String()+err.Error(), bad) {
		t.Error("the token was shown")
	}
	if _, err := os.Stat(e.config); err == nil {
		t.Error("a config was written")
	}
}

// An existing config is replaced only with --force or a typed yes.
func TestInitExistingConfig(t *testing.T) {
	e := newInitEnv(t)
	t.Setenv(envBotToken, e.tg.Token())
	if err := os.MkdirAll(filepath.Dir(e.config), 0o700); err != nil {
		t.Fatal(err)
	}
	const old = "# my own config\n"
	write := func() {
		if err := os.WriteFile(e.config, []byte(old), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write()
	rest := []string{"--user-id", "5150", "--dir", e.work, "--claude", e.claude}
	for _, stdin := range []string{"", "n\n", "\n"} {
		done, out := e.start(t, stdin, rest...)
		err := wait(t, done, out)
		if err == nil || !strings.Contains(err.Error(), "exists and was left as it is: pass --force") {
			t.Errorf("stdin %q: err = %v", stdin, err)
		}
		if !strings.Contains(out.String(), e.config+" exists. Replace it? [y/N]: ") {
			t.Errorf("stdin %q: not asked", stdin)
		}
		if raw, _ := os.ReadFile(e.config); string(raw) != old {
			t.Fatalf("stdin %q: replaced", stdin)
		}
	}
	if n := len(e.tg.CallsTo("getMe")); n != 0 {
		t.Errorf("init called getMe %d times before it may write", n)
	}
	done, out := e.start(t, "y\n", rest...)
	if err := wait(t, done, out); err != nil {
		t.Fatalf("after yes: %v", err)
	}
	if !strings.Contains(out.String(), "✓ Only user 5150 may use the bot (--user-id).") {
		t.Errorf("output: %s", out)
	}
	e.checkConfig(t)
	write()
	done, out = e.start(t, "", append(rest, "--force")...)
	if err := wait(t, done, out); err != nil {
		t.Fatalf("--force: %v", err)
	}
	if strings.Contains(out.String(), "Replace it?") || !strings.Contains(out.String(), "replaces "+e.config+" (--force)") {
		t.Errorf("--force asked: %s", out)
	}
	e.checkConfig(t)
}

// Without a config the bot says that untether init writes one.
func TestRunWithoutConfigNamesInit(t *testing.T) {
	var stdout, stderr strings.Builder
	missing := filepath.Join(t.TempDir(), "untether.toml")
	if code := run(context.Background(), []string{"run", "--config", missing}, &stdout, &stderr); code != 1 {
		t.Errorf("exit %d", code)
	}
	if !strings.Contains(stderr.String(), missing+" does not exist: run `untether init` to create it") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// When nobody writes to the bot, init gives up after --wait exactly, says
// what to do and writes nothing. Messages that are no answer (a group, a
// bot) do not count.
func TestInitTimeout(t *testing.T) {
	e := newInitEnv(t) // for PATH, HOME and the directories
	synctest.Test(t, func(t *testing.T) {
		tg := tgtest.New(t, tgtest.InMemory())
		t.Setenv(envBotToken, tg.Token())
		f, err := parseInitFlags([]string{"--config", e.config, "--api-url", tgtest.MemoryURL, "--wait", "2m"}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		out := &syncBuffer{}
		s := newSetup(t.Context(), f, strings.NewReader(""), out)
		s.client = &http.Client{Transport: tg.Transport()}
		start := time.Now()
		done := make(chan error, 1)
		go func() { done <- s.run(t.Context()) }()
		synctest.Wait() // init waits in getUpdates
		group := tgtest.Group(-100, "team")
		tg.SendMessage(e.owner, group, "hello from a group")
		tg.SendMessage(tgtest.User{ID: 99, IsBot: true, FirstName: "Other bot"}, tgtest.PrivateChat(e.owner), "beep")
		err = <-done
		if took := time.Since(start); took != 2*time.Minute {
			t.Errorf("gave up after %v, want 2m", took)
		}
		if err == nil || !strings.Contains(err.Error(), "nobody wrote to @tgtest_bot within 2 minutes: run untether init again") ||
			!strings.Contains(err.Error(), "--user-id") {
			t.Errorf("err = %v\n%s", err, out)
		}
	})
	if _, err := os.Stat(e.config); err == nil {
		t.Error("a config was written")
	}
}

// No token anywhere, or one that cannot be a token: init stops before
// calling Telegram.
func TestInitWithoutToken(t *testing.T) {
	e := newInitEnv(t)
	for stdin, want := range map[string]string{
		"":                   "no bot token: paste the one @BotFather sent, or set $" + envBotToken,
		"12345:AA bad/token": "the bot token contains spaces or URL characters",
	} {
		done, out := e.start(t, stdin)
		if err := wait(t, done, out); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("stdin %q: err = %v", stdin, err)
		}
	}
	if n := len(e.tg.Calls()); n != 0 {
		t.Errorf("%d calls to Telegram", n)
	}
}

// While a webhook (or another bot with the token) takes the updates,
// init cannot see the owner's message and says why at once.
func TestInitWebhookConflict(t *testing.T) {
	e := newInitEnv(t)
	t.Setenv(envBotToken, e.tg.Token())
	e.tg.SetWebhook("https://hooks.example.com/x")
	done, out := e.start(t, "")
	err := wait(t, done, out)
	if err == nil || !strings.Contains(err.Error(), "another program receives @tgtest_bot's messages") ||
		!strings.Contains(err.Error(), "webhook is active") {
		t.Errorf("err = %v", err)
	}
	if e.tg.Webhook() == "" {
		t.Error("init removed the webhook")
	}
}
