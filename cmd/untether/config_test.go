package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

const testToken = "123456789:AAH-secret_Token"

func noEnv(string) string { return "" }

// renderConfig writes TOML from "section.key" → literal value, starting from
// a minimal valid file; a value of "" deletes the key.
func renderConfig(overrides map[string]string) string {
	kv := map[string]string{
		"telegram.bot_token":        fmt.Sprintf("%q", testToken),
		"telegram.allowed_user_ids": "[42]",
	}
	maps.Copy(kv, overrides)
	bySection := map[string][]string{}
	for k, v := range kv {
		if v == "" {
			continue
		}
		i := strings.LastIndex(k, ".")
		bySection[k[:i]] = append(bySection[k[:i]], k[i+1:]+" = "+v)
	}
	var b strings.Builder
	for _, sec := range slices.Sorted(maps.Keys(bySection)) {
		fmt.Fprintf(&b, "[%s]\n", sec)
		slices.Sort(bySection[sec])
		for _, line := range bySection[sec] {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func load(t *testing.T, overrides map[string]string) (*Config, string, error) {
	t.Helper()
	p := writeFile(t, t.TempDir(), "untether.toml", renderConfig(overrides))
	cfg, err := loadConfig(p, noEnv)
	return cfg, p, err
}

func TestDefaults(t *testing.T) {
	cfg, path, err := load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// The defaults promised by the documentation, written out independently
	// of defaultConfig.
	want := Config{
		Path: path,
		Telegram: TelegramConfig{
			BotToken: testToken, APIURL: "https://api.telegram.org", AllowedUserIDs: []int64{42},
			MaxBacklogAge: 10 * time.Minute, PollTimeout: 30 * time.Second,
		},
		Claude: ClaudeConfig{
			Binary: "claude", WorkingDir: wd, Mode: "interactive", IdleTimeout: 10 * time.Minute, Host: "local",
			Durable: true, DurableWait: time.Hour,
		},
		Progress: ProgressConfig{MinEditInterval: 2 * time.Second, GroupEditInterval: 4 * time.Second, MaxActions: 8, StallAfter: 3 * time.Minute, Stream: "drafts", Rich: true},
		Approvals: ApprovalsConfig{
			Timeout:     10 * time.Minute,
			AutoApprove: []string{"Read", "Glob", "Grep", "LS", "WebSearch", "TodoWrite", "BashOutput"},
			PlanMode:    "off",
		},
		Cooldown: CooldownConfig{Base: 30 * time.Second, Max: 2 * time.Minute},
		State: StateConfig{Path: filepath.Join(filepath.Dir(path), "untether.db"),
			Uploads: filepath.Join(filepath.Dir(path), "uploads"), UploadsKeep: 7 * 24 * time.Hour},
		Voice:    VoiceConfig{Timeout: 2 * time.Minute, MaxDuration: 10 * time.Minute, MaxSizeMB: 20, SpeakMax: 90 * time.Second},
		Projects: ProjectsConfig{GitTimeout: 10 * time.Second},
		Log:      LogConfig{Format: "text", Level: "info"},
	}
	if got, w := fmt.Sprintf("%#v", *cfg), fmt.Sprintf("%#v", want); got != w {
		t.Errorf("defaults:\n got %s\nwant %s", got, w)
	}
	if cfg.Telegram.BotToken.Reveal() != testToken {
		t.Errorf("token not loaded")
	}
}

func TestValuesAreApplied(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "proj"), 0o700); err != nil {
		t.Fatal(err)
	}
	p := writeFile(t, dir, "u.toml", renderConfig(map[string]string{
		"telegram.api_url":                    `"http://127.0.0.1:8081/"`,
		"telegram.allowed_chat_ids":           "[-1001234]",
		"telegram.approver_user_ids":          "[42]",
		"claude.working_dir":                  `"proj"`,
		"claude.idle_timeout":                 "0",
		"claude.mode":                         `"oneshot"`,
		"claude.env":                          `{ ANTHROPIC_BASE_URL = "http://127.0.0.1:1", FOO = "bar" }`,
		"claude.extra_args":                   `["--append-system-prompt", "be brief"]`,
		"claude.add_dirs":                     `["proj"]`,
		"approvals.auto_approve":              "[]",
		"approvals.timeout":                   `"1h30m"`,
		"progress.min_edit_interval":          `"500ms"`,
		"progress.stall_after":                `"0s"`,
		"progress.stream":                     `"edits"`,
		"progress.rich":                       "false",
		"cooldown.base":                       `"0s"`,
		"state.path":                          `"data/x.db"`,
		"claude.permission_mode":              `"acceptEdits"`,
		"claude.dangerously_skip_permissions": "true",
		"claude.max_turn_usd":                 "0.5",
		"claude.project_settings":             "true",
	}))
	cfg, err := loadConfig(p, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"api_url trailing slash trimmed", cfg.Telegram.APIURL, "http://127.0.0.1:8081"},
		{"allowed_chat_ids", cfg.Telegram.AllowedChatIDs, []int64{-1001234}},
		{"approver_user_ids reach the bot", botConfig(cfg).Approvers, []int64{42}},
		{"working_dir relative to file", cfg.Claude.WorkingDir, filepath.Join(dir, "proj")},
		{"idle_timeout 0", cfg.Claude.IdleTimeout, time.Duration(0)},
		{"mode", cfg.Claude.Mode, ModeOneshot},
		{"env", cfg.Claude.Env, map[string]string{"ANTHROPIC_BASE_URL": "http://127.0.0.1:1", "FOO": "bar"}},
		{"extra_args", cfg.Claude.ExtraArgs, []string{"--append-system-prompt", "be brief"}},
		{"add_dirs relative to file", cfg.Claude.AddDirs, []string{filepath.Join(dir, "proj")}},
		{"project_settings reaches the runner", runnerOptions(cfg, nil).ProjectSettings, true},
		{"explicit empty auto_approve", len(cfg.Approvals.AutoApprove), 0},
		{"timeout", cfg.Approvals.Timeout, 90 * time.Minute},
		{"min_edit_interval", cfg.Progress.MinEditInterval, 500 * time.Millisecond},
		{"stall_after 0 turns the watchdog off", botConfig(cfg).StallAfter < 0, true},
		{"stream reaches the bot", botConfig(cfg).Stream, "edits"},
		{"rich = false reaches the bot", botConfig(cfg).PlainAnswers, true},
		{"cooldown disabled", cfg.Cooldown.Base, time.Duration(0)},
		{"state path relative to file", cfg.State.Path, filepath.Join(dir, "data", "x.db")},
		{"uploads next to the state file", cfg.State.Uploads, filepath.Join(dir, "data", "uploads")},
		{"permission_mode", cfg.Claude.PermissionMode, "acceptEdits"},
		{"dangerously_skip_permissions", cfg.Claude.DangerouslySkipPermissions, true},
		{"max_turn_usd", cfg.Claude.MaxTurnUSD, 0.5},
		{"max_turn_usd reaches the CLI", runnerOptions(cfg, nil).MaxBudgetUSD, 0.5},
		{"max_turn_usd reaches the bot", botConfig(cfg).MaxTurnUSD, 0.5},
	}
	for _, c := range checks {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestHomeExpansion(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.Mkdir(filepath.Join(home, "code"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := load(t, map[string]string{"claude.working_dir": `"~/code"`, "state.path": `"~/u.db"`})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Claude.WorkingDir != filepath.Join(home, "code") || cfg.State.Path != filepath.Join(home, "u.db") {
		t.Errorf("working_dir %q, state.path %q: ~ not expanded to %q", cfg.Claude.WorkingDir, cfg.State.Path, home)
	}
}

func TestValidationErrors(t *testing.T) {
	cases := []struct {
		name      string
		overrides map[string]string
		want      string // substring; the file path is checked separately
	}{
		{"token with space", map[string]string{"telegram.bot_token": `"123:abc def"`}, "[telegram] bot_token: contains spaces"},
		{"api_url scheme", map[string]string{"telegram.api_url": `"ftp://x"`}, `[telegram] api_url: "ftp://x" is not an http`},
		{"api_url no host", map[string]string{"telegram.api_url": `"https://"`}, `[telegram] api_url:`},
		{"no allowlist", map[string]string{"telegram.allowed_user_ids": "[]"}, "[telegram] allowed_user_ids is empty"},
		{"negative user id", map[string]string{"telegram.allowed_user_ids": "[-5]"}, "[telegram] allowed_user_ids: -5 is not a user id"},
		{"zero chat id", map[string]string{"telegram.allowed_chat_ids": "[0]"}, "[telegram] allowed_chat_ids: 0"},
		{"approver not allowed", map[string]string{"telegram.approver_user_ids": "[7]"}, "[telegram] approver_user_ids: 7 is not in allowed_user_ids"},
		{"backlog", map[string]string{"telegram.max_backlog_age": `"0s"`}, "[telegram] max_backlog_age: 0s is below"},
		{"poll", map[string]string{"telegram.poll_timeout": `"10ms"`}, "[telegram] poll_timeout:"},
		{"binary", map[string]string{"claude.binary": `""`}, "[claude] binary: must not be empty"},
		{"working_dir missing", map[string]string{"claude.working_dir": `"/nonexistent/untether-test"`}, "[claude] working_dir:"},
		{"permission_mode", map[string]string{"claude.permission_mode": `"yolo"`}, `[claude] permission_mode: "yolo" is not one of default, acceptEdits, plan, bypassPermissions, dontAsk, auto`},
		{"allowed_tools empty", map[string]string{"claude.allowed_tools": `[" "]`}, "[claude] allowed_tools: empty tool name"},
		{"extra_args managed", map[string]string{"claude.extra_args": `["--output-format=text"]`}, `[claude] extra_args: "--output-format=text" is not allowed`},
		{"extra_args model", map[string]string{"claude.extra_args": `["--model", "x"]`}, "use [claude] model"},
		{"extra_args add-dir", map[string]string{"claude.extra_args": `["--add-dir", "/tmp"]`}, "use [claude] add_dirs"},
		{"codex without binary", map[string]string{"codex.model": `"m"`}, "[codex] binary: is not set"},
		{"codex default without binary", map[string]string{"codex.default": `true`}, "[codex] binary: is not set"},
		{"voice both", map[string]string{"voice.api_url": `"https://api.openai.com/v1"`, "voice.model": `"whisper-1"`, "voice.command": `["w", "{file}"]`}, "[voice] command: set either api_url or command, not both"},
		{"voice no model", map[string]string{"voice.api_url": `"https://api.groq.com/openai/v1"`}, "[voice] model: is needed with api_url"},
		{"voice bad url", map[string]string{"voice.api_url": `"api.openai.com"`, "voice.model": `"m"`}, "[voice] api_url:"},
		{"voice key unset", map[string]string{"voice.api_url": `"https://x/v1"`, "voice.model": `"m"`, "voice.api_key_env": `"UNTETHER_TEST_NO_SUCH_KEY"`}, "[voice] api_key_env: $UNTETHER_TEST_NO_SUCH_KEY is empty"},
		{"voice key without api", map[string]string{"voice.api_key_env": `"OPENAI_API_KEY"`}, "[voice] api_key_env: is only used with api_url"},
		{"voice command without file", map[string]string{"voice.command": `["whisper-cli", "-f", "voice.ogg"]`}, "no argument holds {file}"},
		{"voice size", map[string]string{"voice.max_size_mb": `50`}, "[voice] max_size_mb: 50 is outside 1..20"},
		{"speak both", map[string]string{"voice.speak_url": `"https://api.openai.com/v1"`, "voice.speak_model": `"tts-1"`, "voice.speak_command": `["sh", "-c", "x"]`}, "[voice] speak_command: set either speak_url or speak_command, not both"},
		{"speak no model", map[string]string{"voice.speak_url": `"https://api.openai.com/v1"`}, "[voice] speak_model: is needed with speak_url"},
		{"speak bad url", map[string]string{"voice.speak_url": `"api.openai.com"`, "voice.speak_model": `"m"`}, "[voice] speak_url:"},
		{"speak key unset", map[string]string{"voice.speak_url": `"https://x/v1"`, "voice.speak_model": `"m"`, "voice.speak_key_env": `"UNTETHER_TEST_NO_SUCH_KEY"`}, "[voice] speak_key_env: $UNTETHER_TEST_NO_SUCH_KEY is empty"},
		{"speak key from api_key_env unset", map[string]string{"voice.speak_url": `"https://x/v1"`, "voice.speak_model": `"m"`, "voice.api_key_env": `"UNTETHER_TEST_NO_SUCH_KEY"`}, "[voice] api_key_env: $UNTETHER_TEST_NO_SUCH_KEY is empty"},
		{"speak key bot token", map[string]string{"voice.speak_url": `"https://x/v1"`, "voice.speak_model": `"m"`, "voice.speak_key_env": `"UNTETHER_BOT_TOKEN"`}, "[voice] speak_key_env: UNTETHER_BOT_TOKEN is the bot's token"},
		{"speak key without url", map[string]string{"voice.speak_key_env": `"OPENAI_API_KEY"`}, "[voice] speak_key_env: is only used with speak_url"},
		{"speak voice without url", map[string]string{"voice.speak_voice": `"alloy"`}, "[voice] speak_voice: is only used with speak_url"},
		{"speak empty command", map[string]string{"voice.speak_command": `[" "]`}, "[voice] speak_command: the program's name is empty"},
		{"speak max", map[string]string{"voice.speak_max": `"1s"`}, "[voice] speak_max: 1s is outside 5s..10m"},
		{"extra_args mcp-config", map[string]string{"claude.extra_args": `["--mcp-config", "x.json"]`}, "claude mcp add"},
		{"add_dirs missing", map[string]string{"claude.add_dirs": `["/nonexistent/untether-test"]`}, "[claude] add_dirs:"},
		{"add_dirs file", map[string]string{"claude.add_dirs": `["untether.toml"]`}, "[claude] add_dirs: "},
		{"mode", map[string]string{"claude.mode": `"batch"`}, `[claude] mode: "batch" is not one of interactive, oneshot`},
		{"idle negative", map[string]string{"claude.idle_timeout": `"-1s"`}, "[claude] idle_timeout: -1s is below"},
		{"max_live_sessions", map[string]string{"claude.max_live_sessions": "-1"}, "[claude] max_live_sessions: -1 is below 0"},
		{"daily_budget_usd", map[string]string{"claude.daily_budget_usd": "-5.0"}, "[claude] daily_budget_usd: -5 is not an amount of dollars"},
		{"max_turn_usd", map[string]string{"claude.max_turn_usd": "-0.5"}, "[claude] max_turn_usd: -0.5 is not an amount of dollars"},
		{"extra_args budget", map[string]string{"claude.extra_args": `["--max-budget-usd", "1"]`}, "use [claude] max_turn_usd"},
		{"env api key", map[string]string{"claude.env": `{ ANTHROPIC_API_KEY = "k" }`}, "[claude] env: ANTHROPIC_API_KEY"},
		{"env bad name", map[string]string{"claude.env": `{ "A=B" = "k" }`}, `[claude] env: "A=B"`},
		{"env bot token name", map[string]string{"claude.env": `{ UNTETHER_BOT_TOKEN = "x" }`}, "[claude] env: UNTETHER_BOT_TOKEN is never passed"},
		{"env bot token value", map[string]string{"claude.env": fmt.Sprintf(`{ TG = "https://t/bot%s/" }`, testToken)}, "[claude] env: TG holds the bot token"},
		{"env_allow bot token", map[string]string{"claude.env_allow": `["UNTETHER_BOT_TOKEN"]`}, "[claude] env_allow: UNTETHER_BOT_TOKEN is never passed"},
		{"env_allow bad name", map[string]string{"claude.env_allow": `[""]`}, `[claude] env_allow: "" is not a valid`},
		{"edit interval", map[string]string{"progress.min_edit_interval": `"0s"`}, "[progress] min_edit_interval:"},
		{"group edit interval", map[string]string{"progress.group_edit_interval": `"1ms"`}, "[progress] group_edit_interval:"},
		{"max_actions", map[string]string{"progress.max_actions": "0"}, "[progress] max_actions: 0 is outside 1..50"},
		{"stall_after short", map[string]string{"progress.stall_after": `"5s"`}, "[progress] stall_after: 5s is below"},
		{"stream", map[string]string{"progress.stream": `"live"`}, `[progress] stream: "live" is not one of off, edits, drafts`},
		{"approval timeout", map[string]string{"approvals.timeout": `"0s"`}, "[approvals] timeout:"},
		{"auto_approve empty", map[string]string{"approvals.auto_approve": `[""]`}, "[approvals] auto_approve: empty tool name"},
		{"plan_mode", map[string]string{"approvals.plan_mode": `"maybe"`}, `[approvals] plan_mode: "maybe" is not one of off, on, auto`},
		{"cooldown base", map[string]string{"cooldown.base": `"-1s"`}, "[cooldown] base:"},
		{"cooldown max", map[string]string{"cooldown.base": `"1m"`, "cooldown.max": `"10s"`}, "[cooldown] max: 10s is below base (1m0s)"},
		{"state dir", map[string]string{"state.path": `"."`}, "[state] path:"},
		{"git_timeout", map[string]string{"projects.git_timeout": `"10ms"`}, "[projects] git_timeout: 10ms is below the minimum 1s"},
		{"worktrees_dir outside roots", map[string]string{"claude.working_dir": `"."`, "projects.worktrees_dir": `"/nonexistent/worktrees"`},
			"[projects] worktrees_dir: /nonexistent/worktrees is outside the directories the bot may work in"},
		{"log format", map[string]string{"log.format": `"xml"`}, `[log] format: "xml" is not one of text, json`},
		{"log level", map[string]string{"log.level": `"trace"`}, `[log] level: "trace" is not one of debug, info, warn, error`},
		{"integer duration", map[string]string{"approvals.timeout": "600"}, `[approvals] timeout: 600 has no unit; write a string such as "600s"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, path, err := load(t, c.overrides)
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, path) {
				t.Errorf("error %q\nwant it to contain %q and the file %s", msg, c.want, path)
			}
			if strings.Contains(msg, testToken) {
				t.Errorf("error leaks the token: %q", msg)
			}
		})
	}
}

func TestValidationCollectsAllErrors(t *testing.T) {
	_, _, err := load(t, map[string]string{
		"claude.mode": `"batch"`, "log.level": `"loud"`, "progress.max_actions": "-1", "telegram.bot_token": "",
	})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"[claude] mode", "[log] level", "[progress] max_actions", "[telegram] bot_token"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("joined error lacks %q:\n%v", want, err)
		}
	}
}

func TestAllowAnyUser(t *testing.T) {
	cfg, _, err := load(t, map[string]string{"telegram.allowed_user_ids": "", "telegram.allow_any_user": "true"})
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Telegram.AllowAnyUser || len(cfg.Telegram.AllowedUserIDs) != 0 {
		t.Errorf("got %+v", cfg.Telegram)
	}
}

func TestUnknownKeys(t *testing.T) {
	content := renderConfig(map[string]string{"telegram.bot_tokn": `"x"`, "claude.modle": `"x"`, "codex.binray": `"x"`}) +
		"[bogus]\nx = 1\ny = 2\n"
	p := writeFile(t, t.TempDir(), "untether.toml", content)
	_, err := loadConfig(p, noEnv)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{"telegram.bot_tokn", "claude.modle", "codex.binray", "bogus", p} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "bogus.x") {
		t.Errorf("keys inside an unknown table should not be listed one by one: %q", msg)
	}
}

func TestSyntaxErrorNamesFileAndLine(t *testing.T) {
	p := writeFile(t, t.TempDir(), "untether.toml", "[telegram]\nallowed_user_ids = [1]\nbot_token = \"unterminated\n")
	_, err := loadConfig(p, noEnv)
	var pe toml.ParseError
	if err == nil || !errors.As(err, &pe) {
		t.Fatalf("got %v, want a wrapped toml.ParseError", err)
	}
	if want := p + ":3:"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
}

func TestTypeErrorNamesFileAndLine(t *testing.T) {
	p := writeFile(t, t.TempDir(), "untether.toml", renderConfig(map[string]string{"progress.max_actions": `"eight"`}))
	_, err := loadConfig(p, noEnv)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "line ") {
		t.Fatalf("got %v, want the file and line", err)
	}
}

func TestBadDurationNamesKeyAndLine(t *testing.T) {
	p := writeFile(t, t.TempDir(), "untether.toml", renderConfig(map[string]string{"cooldown.base": `"soon"`}))
	_, err := loadConfig(p, noEnv)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "cooldown.base") {
		t.Fatalf("got %v, want the file and key", err)
	}
}

func TestMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope.toml")
	_, err := loadConfig(p, noEnv)
	if err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), p) {
		t.Fatalf("got %v", err)
	}
}

func TestMissingTokenExplainsHowToGetOne(t *testing.T) {
	_, path, err := load(t, map[string]string{"telegram.bot_token": ""})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"@BotFather", "/newbot", "[telegram] bot_token", "$UNTETHER_BOT_TOKEN", path} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestEnvTokenOverride(t *testing.T) {
	env := func(tok string) func(string) string {
		return func(k string) string {
			if k == "UNTETHER_BOT_TOKEN" {
				return tok
			}
			return ""
		}
	}
	dir := t.TempDir()
	withToken := writeFile(t, dir, "a.toml", renderConfig(map[string]string{"telegram.bot_token": `"1:file"`}))
	noToken := writeFile(t, dir, "b.toml", renderConfig(map[string]string{"telegram.bot_token": ""}))
	for _, c := range []struct {
		path, env, want string
	}{
		{withToken, "2:env", "2:env"}, // env wins when set
		{withToken, "", "1:file"},
		{noToken, " 2:env\n", "2:env"}, // whitespace from $(cat file) trimmed
		{noToken, "2:env", "2:env"},
	} {
		cfg, err := loadConfig(c.path, env(c.env))
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.Telegram.BotToken.Reveal(); got != c.want {
			t.Errorf("file %s env %q: token %q, want %q", filepath.Base(c.path), c.env, got, c.want)
		}
	}

	// The exported entry point reads the real environment.
	t.Setenv("UNTETHER_BOT_TOKEN", "3:real")
	cfg, err := LoadConfig(noToken)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Telegram.BotToken.Reveal() != "3:real" {
		t.Errorf("LoadConfig ignored $UNTETHER_BOT_TOKEN")
	}
}

func TestConfigPathResolution(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("UNTETHER_CONFIG", "")
	if got, err := ResolveConfigPath(""); err != nil || got != filepath.Join(home, ".untether", "untether.toml") {
		t.Errorf("default: %q, %v", got, err)
	}
	t.Setenv("UNTETHER_CONFIG", "~/elsewhere.toml")
	if got, err := ResolveConfigPath(""); err != nil || got != filepath.Join(home, "elsewhere.toml") {
		t.Errorf("$UNTETHER_CONFIG: %q, %v", got, err)
	}
	if got, err := ResolveConfigPath("/etc/u.toml"); err != nil || got != "/etc/u.toml" {
		t.Errorf("flag: %q, %v", got, err)
	}
}

// exampleWithCredentials returns the example file with the two values a user
// must fill in filled in.
func exampleWithCredentials(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../untether.toml.example")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, r := range []struct{ re, repl string }{
		{`(?m)^bot_token = ""$`, fmt.Sprintf("bot_token = %q", testToken)},
		{`(?m)^allowed_user_ids = \[\]$`, "allowed_user_ids = [42]"},
	} {
		re := regexp.MustCompile(r.re)
		if !re.MatchString(s) {
			t.Fatalf("example has no line matching %s", r.re)
		}
		s = re.ReplaceAllString(s, r.repl)
	}
	return s
}

func TestExampleLoadsAndShowsDefaults(t *testing.T) {
	dir := t.TempDir()
	example, err := loadConfig(writeFile(t, dir, "example.toml", exampleWithCredentials(t)), noEnv)
	if err != nil {
		t.Fatalf("example does not load: %v", err)
	}
	minimal, err := loadConfig(writeFile(t, dir, "minimal.toml", renderConfig(nil)), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	// Every value in the example must be the default: the example written
	// out in full and a file with only the required keys mean the same.
	example.Path, minimal.Path = "", ""
	if a, b := fmt.Sprintf("%#v", *example), fmt.Sprintf("%#v", *minimal); a != b {
		t.Errorf("example differs from defaults:\nexample %s\ndefault %s", a, b)
	}
}

func configKeys() []string {
	var keys []string
	walkKeys(reflect.ValueOf(Config{}), nil, func(key []string, v reflect.Value) {
		if v.Kind() == reflect.Map && v.Type().Elem().Kind() == reflect.Struct {
			// A table of named tables ([hosts.NAME]): its tables' keys.
			walkKeys(reflect.Zero(v.Type().Elem()), append(key, "NAME"), func(key []string, _ reflect.Value) {
				keys = append(keys, strings.Join(key, "."))
			})
			return
		}
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Struct {
			return // an array of tables ([[schedules]]): its entries are examples, commented out
		}
		keys = append(keys, strings.Join(key, "."))
	})
	return keys
}

func TestExampleHasEveryKey(t *testing.T) {
	var m map[string]any
	md, err := toml.Decode(exampleWithCredentials(t), &m)
	if err != nil {
		t.Fatal(err)
	}
	inExample := map[string]bool{}
	for _, k := range md.Keys() {
		inExample[k.String()] = true
	}
	keys := configKeys()
	if len(keys) < 30 { // sanity check that reflection found the tables
		t.Fatalf("reflection found only %d keys", len(keys))
	}
	for _, k := range keys {
		if table, key, ok := strings.Cut(k, ".NAME."); ok {
			// Named tables are examples, commented out.
			if ex := exampleWithCredentials(t); !strings.Contains(ex, "# ["+table+".") || !strings.Contains(ex, "# "+key+" = ") {
				t.Errorf("key %s missing from untether.toml.example (as a commented example)", k)
			}
			continue
		}
		if !inExample[k] {
			t.Errorf("key %s missing from untether.toml.example", k)
		}
	}
}

func TestDocsHaveEveryKey(t *testing.T) {
	data, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, k := range configKeys() {
		i := strings.LastIndex(k, ".")
		if !strings.Contains(doc, "## ["+k[:i]+"]") || !strings.Contains(doc, "`"+k[i+1:]+"`") {
			t.Errorf("docs/configuration.md does not document %s", k)
		}
	}
}
