package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/tgtest"
)

// doctorSetup is a healthy setup; each case breaks one thing.
type doctorSetup struct {
	tg          *tgtest.Server
	dir         string
	token       string
	apiURL      string
	users       string // the TOML list
	binary      string
	work        string
	mode        string // permission_mode; "" leaves the key out
	state       string
	extra       string // more [telegram] keys
	claudeExtra string // more [claude] keys
	raw         string // when set, the whole file instead
	tail        string // more tables at the end ([codex])
}

func newDoctorSetup(t *testing.T) *doctorSetup {
	t.Helper()
	tg := tgtest.New(t)
	dir := t.TempDir()
	s := &doctorSetup{tg: tg, dir: dir, token: tg.Token(), apiURL: tg.URL(), users: "[5150]",
		binary: writeScript(t, dir, "claude", "echo '9.9.9 (Claude Code)'"),
		work:   filepath.Join(dir, "work"), state: filepath.Join(dir, "state", "untether.db")}
	if err := os.MkdirAll(s.work, 0o755); err != nil {
		t.Fatal(err)
	}
	return s
}

func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func (s *doctorSetup) write(t *testing.T) string {
	t.Helper()
	text := s.raw
	if text == "" {
		mode := ""
		if s.mode != "" {
			mode = fmt.Sprintf("permission_mode = %q\n", s.mode)
		}
		text = fmt.Sprintf("[telegram]\nbot_token = %q\napi_url = %q\nallowed_user_ids = %s\n%s\n"+
			"[claude]\nbinary = %q\nworking_dir = %q\n%s%s\n[state]\npath = %q\n",
			s.token, s.apiURL, s.users, s.extra, s.binary, s.work, mode, s.claudeExtra, s.state) + s.tail
	}
	path := filepath.Join(s.dir, "untether.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// doctorChecks splits the output into blocks by check name.
func doctorChecks(out string) (ok map[string]bool, blocks map[string]string) {
	ok, blocks = map[string]bool{}, map[string]string{}
	var cur string
	for line := range strings.SplitSeq(out, "\n") {
		mark, rest, found := strings.Cut(line, " ")
		if found && (mark == "✓" || mark == "✗") {
			name, _, _ := strings.Cut(rest, ":")
			cur = name
			ok[name] = mark == "✓"
		}
		if cur != "" {
			blocks[cur] += line + "\n"
		}
	}
	return ok, blocks
}

var quietLog = slog.New(slog.DiscardHandler)

var allChecks = []string{"config", "bot token", "allowlist", "claude", "working dir", "state file", "permission mode"}

func TestDoctor(t *testing.T) {
	t.Setenv(envBotToken, "") // the file's token is the one under test
	closedURL := func(t *testing.T) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr
	}
	cases := []struct {
		name   string
		breaks func(t *testing.T, s *doctorSetup)
		tweak  func(d *doctor)
		failed string   // the one check that must fail; "" for a healthy setup
		want   []string // in that check's block (or the whole output when healthy)
		only   bool     // the failing check is the only line (nothing else can be checked)
	}{
		{name: "healthy", want: []string{"✓ bot token: valid: the bot is @tgtest_bot (id 7000000001)",
			"version 9.9.9 (Claude Code)", "does not exist yet", "1 user may use the bot", "All 8 checks passed."}},
		{name: "webhook set", breaks: func(t *testing.T, s *doctorSetup) {
			s.tg.SetWebhook("https://hooks.example.com/secret-path-123")
		}, want: []string{"note: a webhook is set (to hooks.example.com, 0 updates pending); untether removes it", "All 8 checks passed."}},
		{name: "existing state file", breaks: func(t *testing.T, s *doctorSetup) {
			st, err := prefs.Open(t.Context(), s.state, prefs.WithLogger(quietLog))
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = st.AcceptUpdate(1, "42", &prefs.Prompt{ChatID: 42, Text: "waiting"})
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
		}, want: []string{"opens, not in use by a running bot (1 chat known, 1 message waiting to run on the next start)"}},
		{name: "unknown key", breaks: func(t *testing.T, s *doctorSetup) { s.extra = "surprise = 1" },
			failed: "config", want: []string{"telegram.surprise", "fix: correct the keys"}},
		{name: "syntax error", breaks: func(t *testing.T, s *doctorSetup) { s.raw = "[telegram\nbot_token = 1\n" },
			failed: "config", only: true, want: []string{"untether.toml:2:", "to end table name"}},
		{name: "no config file", breaks: func(t *testing.T, s *doctorSetup) { s.raw = "-" },
			failed: "config", only: true, want: []string{"does not exist", "run untether init", "untether.toml.example"}},
		{name: "token rejected", breaks: func(t *testing.T, s *doctorSetup) { s.token = "7000000001:AAwrong-token" },
			failed: "bot token", want: []string{"Telegram rejected it (getMe: 401 Unauthorized)", "@BotFather"}},
		{name: "token not set", breaks: func(t *testing.T, s *doctorSetup) { s.token = "" },
			failed: "bot token", want: []string{"not set", "$UNTETHER_BOT_TOKEN"}},
		{name: "token malformed", breaks: func(t *testing.T, s *doctorSetup) { s.token = "7000000001:AA bad/token" },
			failed: "bot token", want: []string{"malformed"}},
		{name: "api unreachable", breaks: func(t *testing.T, s *doctorSetup) { s.apiURL = closedURL(t) },
			failed: "bot token", want: []string{"could not reach http://127.0.0.1:", "connection refused", "api_url"}},
		{name: "allowlist empty", breaks: func(t *testing.T, s *doctorSetup) { s.users = "[]" },
			failed: "allowlist", want: []string{"empty: the bot answers nobody", "allowed_user_ids = [123456789]"}},
		{name: "allowlist with a group id", breaks: func(t *testing.T, s *doctorSetup) { s.users = "[5150, -100123]" },
			failed: "allowlist", want: []string{"-100123 is not a user id", "allowed_chat_ids"}},
		{name: "claude missing", breaks: func(t *testing.T, s *doctorSetup) { s.binary = filepath.Join(s.dir, "no-claude") },
			failed: "claude", want: []string{"no-claude not found", "npm install -g @anthropic-ai/claude-code"}},
		{name: "claude not on PATH", breaks: func(t *testing.T, s *doctorSetup) { s.binary = "untether-no-such-claude" },
			failed: "claude", want: []string{"untether-no-such-claude not found: executable file not found in $PATH"}},
		{name: "claude fails", breaks: func(t *testing.T, s *doctorSetup) {
			s.binary = writeScript(t, s.dir, "broken-claude", "echo 'env: node: No such file or directory' >&2; exit 127")
		}, failed: "claude", want: []string{"--version failed: exit status 127", "env: node: No such file or directory", "fix: run `"}},
		// The CLI's own errors can quote the API key the bot gives it: the
		// report redacts it like every chat and log line does.
		{name: "claude prints the API key", breaks: func(t *testing.T, s *doctorSetup) {
			t.Setenv("ANTHROPIC_API_KEY", "sk-ant-api03-doctor-test-key-0123456789")
			s.claudeExtra = "use_api_billing = true"
			s.binary = writeScript(t, s.dir, "keyed-claude", `echo "Invalid API key: $ANTHROPIC_API_KEY" >&2; exit 1`)
		}, failed: "claude", want: []string{"Invalid API key: [redacted]"}},
		{name: "claude hangs", breaks: func(t *testing.T, s *doctorSetup) {
			s.binary = writeScript(t, s.dir, "slow-claude", "exec sleep 30")
		}, tweak: func(d *doctor) { d.claudeTimeout = 200 * time.Millisecond },
			failed: "claude", want: []string{"--version did not answer within 200ms"}},
		{name: "codex", breaks: func(t *testing.T, s *doctorSetup) {
			home := filepath.Join(s.dir, "codex-home")
			os.MkdirAll(home, 0o700)
			os.WriteFile(filepath.Join(home, "config.toml"), []byte("model_provider = \"fake\"\n"), 0o600)
			s.tail = fmt.Sprintf("[codex]\nbinary = %q\n[codex.env]\nCODEX_HOME = %q\n",
				writeScript(t, s.dir, "codex", "echo 'codex-cli 0.171.0'"), home)
		}, want: []string{"✓ codex: ", "version codex-cli 0.171.0", "config.toml readable (provider fake)", "All 9 checks passed."}},
		{name: "codex missing", breaks: func(t *testing.T, s *doctorSetup) {
			s.tail = fmt.Sprintf("[codex]\nbinary = %q\n", filepath.Join(s.dir, "no-codex"))
		}, failed: "codex", want: []string{"no-codex not found", "npm install -g @openai/codex"}},
		{name: "codex fails", breaks: func(t *testing.T, s *doctorSetup) {
			s.tail = fmt.Sprintf("[codex]\nbinary = %q\n", writeScript(t, s.dir, "broken-codex", "echo 'env: node: No such file or directory' >&2; exit 127"))
		}, failed: "codex", want: []string{"--version failed: exit status 127", "env: node: No such file or directory"}},
		{name: "codex config unreadable", breaks: func(t *testing.T, s *doctorSetup) {
			home := filepath.Join(s.dir, "codex-home")
			os.MkdirAll(home, 0o700)
			os.WriteFile(filepath.Join(home, "config.toml"), []byte("model_provider = [\n"), 0o600)
			s.tail = fmt.Sprintf("[codex]\nbinary = %q\n[codex.env]\nCODEX_HOME = %q\n",
				writeScript(t, s.dir, "codex", "echo 'codex-cli 0.171.0'"), home)
		}, failed: "codex", want: []string{"config.toml is unreadable", "CODEX_HOME"}},
		{name: "working dir missing", breaks: func(t *testing.T, s *doctorSetup) { s.work = filepath.Join(s.dir, "gone") },
			failed: "working dir", want: []string{"gone does not exist", "mkdir -p"}},
		{name: "working dir is a file", breaks: func(t *testing.T, s *doctorSetup) { s.work = s.binary },
			failed: "working dir", want: []string{"is not a directory"}},
		{name: "project root missing", breaks: func(t *testing.T, s *doctorSetup) {
			s.claudeExtra = fmt.Sprintf("project_roots = [%q]\n", filepath.Join(s.dir, "nowhere"))
		}, failed: "working dir", want: []string{"project_roots: ", "nowhere is not a directory", "remove it from project_roots"}},
		{name: "project roots", breaks: func(t *testing.T, s *doctorSetup) {
			s.claudeExtra = fmt.Sprintf("project_roots = [%q, %q]\n", s.dir, s.work)
		}, want: []string{"/cwd may choose inside 2 project roots", "All 8 checks passed."}},
		{name: "state file locked by a running bot", breaks: func(t *testing.T, s *doctorSetup) {
			st, err := prefs.Open(t.Context(), s.state, prefs.WithLogger(quietLog))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
		}, failed: "state file", want: []string{fmt.Sprintf("is locked by another untether (pid %d on ", os.Getpid()),
			"If that is the bot you mean to run, this is expected"}},
		{name: "state file corrupt", breaks: func(t *testing.T, s *doctorSetup) {
			os.MkdirAll(filepath.Dir(s.state), 0o700)
			if err := os.WriteFile(s.state, bytes.Repeat([]byte("not a database "), 4096), 0o600); err != nil {
				t.Fatal(err)
			}
		}, failed: "state file", want: []string{"unreadable or corrupt", "restore a backup"}},
		{name: "state path is a directory", breaks: func(t *testing.T, s *doctorSetup) { os.MkdirAll(s.state, 0o700) },
			failed: "state file", want: []string{"untether.db is a directory", "set [state] path to a file, e.g. "}},
		{name: "permission mode invalid", breaks: func(t *testing.T, s *doctorSetup) { s.mode = "yolo" },
			failed: "permission mode", want: []string{`"yolo" is not a permission mode`, "acceptEdits"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newDoctorSetup(t)
			if c.breaks != nil {
				c.breaks(t, s)
			}
			path := filepath.Join(s.dir, "untether.toml")
			if s.raw != "-" {
				path = s.write(t)
			}
			d := newDoctor()
			if c.tweak != nil {
				c.tweak(d)
			}
			var out bytes.Buffer
			err := d.run(context.Background(), path, &out)
			text := out.String()
			t.Logf("doctor output:\n%s", text)
			if s.token != "" && strings.Contains(text, s.token) {
				t.Errorf("the token is printed")
			}
			if k := os.Getenv("ANTHROPIC_API_KEY"); k != "" && strings.Contains(text, k) {
				t.Errorf("the API key is printed")
			}
			if strings.Contains(text, "secret-path") || (c.name != "webhook set" && strings.Contains(text, "webhook")) {
				t.Errorf("a webhook's path is printed, or a webhook reported that is not set")
			}
			ok, blocks := doctorChecks(text)
			if c.failed == "" {
				if err != nil {
					t.Errorf("healthy setup: %v", err)
				}
				for _, name := range allChecks {
					if !ok[name] {
						t.Errorf("check %q did not pass", name)
					}
				}
				for _, w := range c.want {
					if !strings.Contains(text, w) {
						t.Errorf("output lacks %q", w)
					}
				}
				return
			}
			if err == nil {
				t.Error("a failed check did not make doctor fail")
			}
			if ok[c.failed] || blocks[c.failed] == "" {
				t.Fatalf("check %q did not fail", c.failed)
			}
			if !strings.Contains(blocks[c.failed], "    fix: ") {
				t.Errorf("no fix for %q", c.failed)
			}
			for _, w := range c.want {
				if !strings.Contains(blocks[c.failed], w) {
					t.Errorf("%q block lacks %q", c.failed, w)
				}
			}
			if c.only {
				if len(ok) != 1 {
					t.Errorf("want only the %q line, got %v", c.failed, ok)
				}
				return
			}
			// One problem, one ✗: every other check still runs and passes.
			for _, name := range allChecks {
				if name != c.failed && !ok[name] {
					t.Errorf("check %q failed too (or is missing)", name)
				}
			}
		})
	}
}

// The command itself: flags, exit status, and where the summary goes.
func TestDoctorCommand(t *testing.T) {
	t.Setenv(envBotToken, "")
	s := newDoctorSetup(t)
	path := s.write(t)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"doctor", "--config", path}, &stdout, &stderr); code != 0 {
		t.Fatalf("healthy: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	s.users, s.mode = "[]", "yolo"
	s.write(t)
	stdout.Reset()
	code := run(context.Background(), []string{"doctor", "--config", path}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "2 of 8 checks failed") {
		t.Errorf("broken: exit %d, stderr %q", code, stderr.String())
	}
	if code := run(context.Background(), []string{"doctor", "--nope"}, &stdout, &stderr); code != 2 {
		t.Errorf("bad flag: exit %d", code)
	}
}

func TestDoctorHeldSessions(t *testing.T) {
	dir := t.TempDir()
	cfg := defaultConfig()
	cfg.State.Path = filepath.Join(dir, "untether.db")
	d := &doctor{cfg: &cfg}
	if c := d.checkHeld(); !c.ok || c.msg != "none running" {
		t.Errorf("no folder: %+v", c)
	}
	root := holdDir(&cfg)
	if err := os.MkdirAll(filepath.Join(root, "gone1"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o700); err != nil {
		t.Fatal(err)
	}
	c := d.checkHeld()
	if !c.ok || !strings.Contains(c.msg, "1 Claude process held") || !strings.Contains(c.msg, "0 running") ||
		len(c.more) != 1 || !strings.Contains(c.more[0], "gone") {
		t.Errorf("a dead holder: %+v", c)
	}
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if c := d.checkHeld(); c.ok || !strings.Contains(c.fix, "chmod 700") {
		t.Errorf("an open folder: %+v", c)
	}
}

// count says a number of things in English: "processes", not "processs".
func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{{1, "Claude process", "1 Claude process"}, {2, "Claude process", "2 Claude processes"}, {0, "file", "0 files"}, {3, "host", "3 hosts"}} {
		if got := count(c.n, c.noun); got != c.want {
			t.Errorf("count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
