package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/projects"
)

// Values of [claude] mode.
const (
	ModeInteractive = "interactive" // stream-json over pipes; approvals through Telegram
	ModeOneshot     = "oneshot"     // one process per prompt, PTY stdin, no approvals
)

// Values of [approvals] plan_mode.
const (
	PlanModeOff  = "off"
	PlanModeOn   = "on"
	PlanModeAuto = "auto"
)

const envBotToken = "UNTETHER_BOT_TOKEN"
const envConfigPath = "UNTETHER_CONFIG"

// Config is the whole configuration after loading: defaults applied, paths
// absolute, durations parsed. The toml tags are the key names in the file.
type Config struct {
	// Path is the absolute path of the file the configuration came from.
	Path string `toml:"-"`

	Telegram TelegramConfig `toml:"telegram"`
	Claude   ClaudeConfig   `toml:"claude"`
	// Codex offers OpenAI's Codex CLI as a second engine (codexconfig.go).
	Codex     CodexConfig     `toml:"codex"`
	Progress  ProgressConfig  `toml:"progress"`
	Approvals ApprovalsConfig `toml:"approvals"`
	Cooldown  CooldownConfig  `toml:"cooldown"`
	State     StateConfig     `toml:"state"`
	Voice     VoiceConfig     `toml:"voice"`
	Projects  ProjectsConfig  `toml:"projects"`
	Log       LogConfig       `toml:"log"`
	// Hosts are the other machines Claude can work on, by name (/host).
	Hosts map[string]HostConfig `toml:"hosts"`
	// Scheduled and triggered runs (schedconfig.go).
	Schedule  ScheduleSettings      `toml:"schedule"`
	Schedules []ScheduleEntryConfig `toml:"schedules"`
	Triggers  TriggersConfig        `toml:"triggers"`
	// Web is the web view and Mini App (webconfig.go).
	Web WebConfig `toml:"web"`
}

type TelegramConfig struct {
	BotToken       Secret        `toml:"bot_token"`
	APIURL         string        `toml:"api_url"`
	AllowedUserIDs []int64       `toml:"allowed_user_ids"`
	AllowAnyUser   bool          `toml:"allow_any_user"`
	AllowedChatIDs []int64       `toml:"allowed_chat_ids"`
	MaxBacklogAge  time.Duration `toml:"max_backlog_age"`
	PollTimeout    time.Duration `toml:"poll_timeout"`

	// ApproverUserIDs may answer approval, plan and question prompts in
	// groups; empty: everyone allowed.
	ApproverUserIDs []int64 `toml:"approver_user_ids"`
}

type ClaudeConfig struct {
	Binary                     string   `toml:"binary"`
	WorkingDir                 string   `toml:"working_dir"`
	ProjectRoots               []string `toml:"project_roots"`
	AddDirs                    []string `toml:"add_dirs"`
	Model                      string   `toml:"model"`
	PermissionMode             string   `toml:"permission_mode"`
	AllowedTools               []string `toml:"allowed_tools"`
	DangerouslySkipPermissions bool     `toml:"dangerously_skip_permissions"`
	// ProjectSettings lets a project's own Claude Code settings and
	// .mcp.json run their programs (hooks, apiKeyHelper, env, MCP servers);
	// off, the CLI treats every folder as untrusted (runner.Options).
	ProjectSettings        bool              `toml:"project_settings"`
	UseAPIBilling          bool              `toml:"use_api_billing"`
	ExtraArgs              []string          `toml:"extra_args"`
	Mode                   string            `toml:"mode"`
	IdleTimeout            time.Duration     `toml:"idle_timeout"`
	MaxLiveSessions        int               `toml:"max_live_sessions"`
	DailyBudgetUSD         float64           `toml:"daily_budget_usd"`
	MaxTurnUSD             float64           `toml:"max_turn_usd"`
	IncludePartialMessages bool              `toml:"include_partial_messages"`
	Env                    map[string]string `toml:"env"`
	EnvAllow               []string          `toml:"env_allow"`
	// Host is the machine a chat works on unless /host moved it: "local"
	// (this one, the default) or a [hosts.NAME].
	Host string `toml:"host"`
	// Durable keeps Claude running through a restart of the bot (package
	// hold); DurableWait is how long a held Claude waits for a bot.
	Durable     bool          `toml:"durable"`
	DurableWait time.Duration `toml:"durable_wait"`
}

type ProgressConfig struct {
	MinEditInterval   time.Duration `toml:"min_edit_interval"`
	GroupEditInterval time.Duration `toml:"group_edit_interval"`
	MaxActions        int           `toml:"max_actions"`
	StallAfter        time.Duration `toml:"stall_after"`
	// Stream is how Claude's text shows while it is written: off, edits or
	// drafts (a chat may choose its own with /stream).
	Stream string `toml:"stream"`
	// Rich sends answers with tables, task lists, headings or long code
	// as rich messages (Bot API 10.1); false keeps every answer plain.
	Rich bool `toml:"rich"`
}

type ApprovalsConfig struct {
	Timeout     time.Duration `toml:"timeout"`
	AutoApprove []string      `toml:"auto_approve"`
	PlanMode    string        `toml:"plan_mode"`
}

type CooldownConfig struct {
	Base time.Duration `toml:"base"`
	Max  time.Duration `toml:"max"`
}

type StateConfig struct {
	Path        string        `toml:"path"`
	Uploads     string        `toml:"uploads"`
	UploadsKeep time.Duration `toml:"uploads_keep"`
}

// VoiceConfig is how voice notes are transcribed: an OpenAI-compatible API
// (api_url, api_key_env, model) or a local command; neither: voice notes
// get a hint.
type VoiceConfig struct {
	APIURL      string        `toml:"api_url"`
	APIKeyEnv   string        `toml:"api_key_env"`
	Model       string        `toml:"model"`
	Command     []string      `toml:"command"`
	Timeout     time.Duration `toml:"timeout"`
	MaxDuration time.Duration `toml:"max_duration"`
	MaxSizeMB   int           `toml:"max_size_mb"`
	// Voice replies (answers also as voice notes): an OpenAI-compatible
	// speech API (speak_url, speak_key_env, speak_model, speak_voice) or a
	// local command (text on stdin, OGG/Opus on stdout); neither: none.
	SpeakURL     string   `toml:"speak_url"`
	SpeakKeyEnv  string   `toml:"speak_key_env"` // "" with speak_url: api_key_env's
	SpeakModel   string   `toml:"speak_model"`
	SpeakVoice   string   `toml:"speak_voice"`
	SpeakCommand []string `toml:"speak_command"`
	// SpeakMax bounds how much of an answer is spoken, as a length of
	// speech; a closing line says the rest is in the message.
	SpeakMax time.Duration `toml:"speak_max"`
	// APIKey is the value of $api_key_env, read at load; SpeakKey is the
	// speech API's ($speak_key_env, else $api_key_env).
	APIKey   Secret `toml:"-"`
	SpeakKey Secret `toml:"-"`
}

// speakKeyEnv is the variable the speech API's key is read from.
func (v *VoiceConfig) speakKeyEnv() string {
	if v.SpeakKeyEnv != "" || v.SpeakURL == "" {
		return v.SpeakKeyEnv
	}
	return v.APIKeyEnv
}

// ProjectsConfig is about the owner's repositories: /diff, /branch and
// the changes a turn made (see docs/projects.md).
type ProjectsConfig struct {
	// WorktreesDir is where /branch makes worktrees ("" = beside the
	// repository); it must lie inside the project roots.
	WorktreesDir string        `toml:"worktrees_dir"`
	GitTimeout   time.Duration `toml:"git_timeout"`
}

type LogConfig struct {
	Format string `toml:"format"`
	Level  string `toml:"level"`
}

// defaultConfig returns the defaults; a fresh value each call because the
// TOML decoder writes into the default slices' backing arrays.
func defaultConfig() Config {
	return Config{
		Telegram: TelegramConfig{
			APIURL:        "https://api.telegram.org",
			MaxBacklogAge: 10 * time.Minute,
			PollTimeout:   30 * time.Second,
		},
		Claude: ClaudeConfig{
			Binary:      "claude",
			Mode:        ModeInteractive,
			IdleTimeout: 10 * time.Minute,
			Host:        localHost,
			Durable:     true,
			DurableWait: time.Hour,
		},
		Progress: ProgressConfig{
			MinEditInterval:   2 * time.Second,
			GroupEditInterval: 4 * time.Second,
			MaxActions:        8,
			StallAfter:        3 * time.Minute,
			Stream:            "drafts",
			Rich:              true,
		},
		Approvals: ApprovalsConfig{
			Timeout:     10 * time.Minute,
			AutoApprove: approvals.DefaultAutoApprove(),
			PlanMode:    PlanModeOff,
		},
		Cooldown: CooldownConfig{Base: 30 * time.Second, Max: 120 * time.Second},
		State:    StateConfig{UploadsKeep: 7 * 24 * time.Hour},
		Voice:    VoiceConfig{Timeout: 2 * time.Minute, MaxDuration: 10 * time.Minute, MaxSizeMB: 20, SpeakMax: 90 * time.Second},
		Projects: ProjectsConfig{GitTimeout: projects.DefaultGitTimeout},
		Log:      LogConfig{Format: "text", Level: "info"},
	}
}

// DefaultConfigPath is where the configuration is read from when no
// --config flag is given: $UNTETHER_CONFIG if set, else
// ~/.untether/untether.toml.
func DefaultConfigPath() (string, error) {
	return defaultConfigPath(os.Getenv)
}

func defaultConfigPath(getenv func(string) string) (string, error) {
	if p := getenv(envConfigPath); p != "" {
		return expandHome(p)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the default config file (set --config or $%s): %w", envConfigPath, err)
	}
	return filepath.Join(home, ".untether", "untether.toml"), nil
}

// ResolveConfigPath applies the precedence --config flag > $UNTETHER_CONFIG >
// ~/.untether/untether.toml; flagValue is "" when the flag was not given.
func ResolveConfigPath(flagValue string) (string, error) {
	if flagValue != "" {
		return expandHome(flagValue)
	}
	return DefaultConfigPath()
}

// LoadConfig reads, defaults and validates the configuration file at path.
// $UNTETHER_BOT_TOKEN, when set and non-empty, replaces [telegram] bot_token.
// All problems found are reported together (errors.Join), each naming the
// key and the file.
func LoadConfig(path string) (*Config, error) {
	return loadConfig(path, os.Getenv)
}

func loadConfig(path string, getenv func(string) string) (*Config, error) {
	cfg, err := decodeConfig(path, getenv)
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

// decodeConfig is loadConfig that also returns the configuration when only
// values are wrong (it is nil only when the file could not be read or
// parsed), so that untether doctor can still check the rest.
func decodeConfig(path string, getenv func(string) string) (*Config, error) {
	path, err := expandHome(path)
	if err != nil {
		return nil, err
	}
	if path, err = filepath.Abs(path); err != nil {
		return nil, fmt.Errorf("config path: %w", err)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("config file %s does not exist: run `untether init` to create it "+
			"(or copy untether.toml.example there, or pass --config PATH / set $%s): %w", path, envConfigPath, err)
	}
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}

	cfg := defaultConfig()
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &configSyntaxError{path: path, pe: pe}
		}
		// Type mismatches: the library's message already carries the line.
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	cfg.Path = path
	// Tokens pasted into a file or read with $(cat ...) often carry stray
	// whitespace; it is never part of a token.
	cfg.Telegram.BotToken = Secret(strings.TrimSpace(cfg.Telegram.BotToken.Reveal()))
	if tok := strings.TrimSpace(getenv(envBotToken)); tok != "" {
		cfg.Telegram.BotToken = Secret(tok)
	}
	if name := cfg.Voice.APIKeyEnv; name != "" {
		cfg.Voice.APIKey = Secret(strings.TrimSpace(getenv(name)))
	}
	if name := cfg.Voice.speakKeyEnv(); name != "" {
		cfg.Voice.SpeakKey = Secret(strings.TrimSpace(getenv(name)))
	}

	var errs []error
	if err := unknownKeys(md, path); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, durationsAsStrings(md, &cfg, path)...)
	emptyToNil(&cfg)
	cfg.Telegram.APIURL = strings.TrimRight(cfg.Telegram.APIURL, "/")
	errs = append(errs, cfg.resolvePaths()...)
	errs = append(errs, cfg.validate()...)
	errs = append(errs, cfg.checkSchedules(getenv)...)
	if len(errs) > 0 {
		return &cfg, errors.Join(errs...)
	}
	return &cfg, nil
}

// configSyntaxError names the file and line of a TOML syntax error.
type configSyntaxError struct {
	path string
	pe   toml.ParseError
}

func (e *configSyntaxError) Error() string {
	msg := fmt.Sprintf("%s:%d:%d: %s", e.path, e.pe.Position.Line, e.pe.Position.Col, e.pe.Message)
	if e.pe.LastKey != "" {
		msg += fmt.Sprintf(" (key %s)", e.pe.LastKey)
	}
	return msg + scheduleSyntaxHint(e.pe.Message)
}

func (e *configSyntaxError) Unwrap() error { return e.pe }

// unknownKeys reports every key the Config struct has no field for — a typo
// would otherwise silently leave a default (possibly a less safe one) active.
func unknownKeys(md toml.MetaData, path string) error {
	undecoded := md.Undecoded()
	seen := make(map[string]bool, len(undecoded))
	var names []string
	for _, k := range undecoded {
		seen[k.String()] = true
		// Inside an unknown table every key is undecoded too; naming the
		// table is enough.
		if hasUndecodedParent(k, seen) {
			continue
		}
		names = append(names, k.String())
	}
	if len(names) == 0 {
		return nil
	}
	return fmt.Errorf("unknown keys in %s: %s (see untether.toml.example for the valid keys)", path, strings.Join(names, ", "))
}

// hasUndecodedParent reports whether a proper prefix of k is in seen; keys
// come in document order, so a table is seen before the keys inside it.
func hasUndecodedParent(k toml.Key, seen map[string]bool) bool {
	for i := 1; i < len(k); i++ {
		if seen[k[:i].String()] {
			return true
		}
	}
	return false
}

// durationsAsStrings rejects integer durations other than 0: the decoder
// would take 600 as 600 nanoseconds, which is never what was meant.
func durationsAsStrings(md toml.MetaData, cfg *Config, path string) []error {
	var errs []error
	durType := reflect.TypeFor[time.Duration]()
	walkKeys(reflect.ValueOf(cfg).Elem(), nil, func(key []string, v reflect.Value) {
		if v.Type() != durType || md.Type(key...) != "Integer" || v.Int() == 0 {
			return
		}
		errs = append(errs, fmt.Errorf("[%s] %s: %d has no unit; write a string such as \"%ds\" (in %s)",
			strings.Join(key[:len(key)-1], "."), key[len(key)-1], v.Int(), v.Int(), path))
		// Read it as seconds from here on so the range checks do not also
		// complain about "600ns"; loading fails either way.
		v.SetInt(v.Int() * int64(time.Second))
	})
	return errs
}

// emptyToNil makes "no values" one thing: an empty list or table in the file
// becomes nil, the same as an absent key with an empty default. (Defaults are
// applied before decoding, so this cannot bring a default back.)
func emptyToNil(cfg *Config) {
	walkKeys(reflect.ValueOf(cfg).Elem(), nil, func(_ []string, v reflect.Value) {
		if (v.Kind() == reflect.Slice || v.Kind() == reflect.Map) && v.Len() == 0 {
			v.SetZero()
		}
	})
}

// walkKeys calls fn for every leaf key (non-struct field with a toml tag).
func walkKeys(v reflect.Value, prefix []string, fn func(key []string, v reflect.Value)) {
	t := v.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if name == "" || name == "-" {
			continue
		}
		key := append(slices.Clone(prefix), name)
		if f := v.Field(i); f.Kind() == reflect.Struct {
			walkKeys(f, key, fn)
		} else {
			fn(key, f)
		}
	}
}

// resolvePaths expands ~ and makes paths absolute: relative paths in the file
// are relative to the file's directory, so the meaning of the file does not
// depend on where the bot was started from.
func (c *Config) resolvePaths() []error {
	var errs []error
	dir := filepath.Dir(c.Path)
	abs := func(key, p string) string {
		p, err := expandHome(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w (in %s)", key, err, c.Path))
			return p
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return filepath.Clean(p)
	}
	if c.Claude.WorkingDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			errs = append(errs, fmt.Errorf("[claude] working_dir: current directory: %w", err))
		}
		c.Claude.WorkingDir = wd
	} else {
		c.Claude.WorkingDir = abs("[claude] working_dir", c.Claude.WorkingDir)
	}
	for i, r := range c.Claude.ProjectRoots {
		c.Claude.ProjectRoots[i] = abs("[claude] project_roots", r)
	}
	for i, d := range c.Claude.AddDirs {
		c.Claude.AddDirs[i] = abs("[claude] add_dirs", d)
	}
	if c.State.Path == "" {
		c.State.Path = filepath.Join(dir, "untether.db")
	} else {
		c.State.Path = abs("[state] path", c.State.Path)
	}
	if c.State.Uploads == "" {
		c.State.Uploads = filepath.Join(filepath.Dir(c.State.Path), "uploads")
	} else {
		c.State.Uploads = abs("[state] uploads", c.State.Uploads)
	}
	if c.Projects.WorktreesDir != "" {
		c.Projects.WorktreesDir = abs("[projects] worktrees_dir", c.Projects.WorktreesDir)
	}
	return errs
}

func expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("expanding ~ in %q: %w", p, err)
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~")), nil
}
