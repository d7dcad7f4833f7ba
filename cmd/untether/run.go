package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/chat"
	"github.com/untether/untether/filesend"
	"github.com/untether/untether/host"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/projects"
	"github.com/untether/untether/redact"
	"github.com/untether/untether/scope"
	"github.com/untether/untether/speak"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/voice"
)

// cmdRun starts the bot and runs until SIGINT/SIGTERM.
func cmdRun(ctx context.Context, args []string, stderr io.Writer) error {
	flags, err := parseFlags("run", args, stderr)
	if err != nil {
		return err
	}
	cfg, log, err := loadForRun(flags, stderr)
	if err != nil {
		return err
	}
	store, err := prefs.Open(ctx, cfg.State.Path, prefs.WithLogger(log))
	if err != nil {
		return err
	}
	defer store.Close()
	// The one host Claude works on today: this machine. Everything done
	// there (Claude's processes and their CPU time for the stall watchdog,
	// git, the path rule, uploads, /get) goes through it.
	h := host.Local{}
	bc := botConfig(cfg)
	bc.Host, bc.Git.Host = h, h
	bc.MaxLive = maxLive(ctx, cfg.Claude.MaxLiveSessions, h, log.With("host", localHost))
	bc.DefaultMachine = cfg.Claude.Host
	bc.Version, bc.ClaudeVersion = buildVersion(), startClaudeVersion(ctx, cfg, log)
	bc.Schedules = botSchedules(cfg)
	if hooks, err := hookServer(cfg, log); err != nil {
		return err
	} else if hooks != nil {
		// Now, not once the bot runs: on a taken address whoever holds it
		// would receive the deliveries while the bot ran on without them.
		if err := hooks.Listen(); err != nil {
			return fmt.Errorf("%w: the bot does not start without its triggers; stop the program that holds the address, "+
				"or change [triggers] listen in %s", err, cfg.Path)
		}
		defer hooks.Close() // for a bot that stops before serving
		bc.Hooks = hooks
	}
	files := fileServer(cfg, log)
	if files != nil {
		defer files.Close() // Run closes it too; this is for a Run that never started
		bc.Files = files
	}
	machines, hosts, err := remoteMachines(ctx, cfg, files, log)
	if err != nil {
		return err
	}
	for _, rh := range hosts {
		defer rh.Close() // the multiplexed connections end with the bot
	}
	bc.Machines = machines
	here := enginePlace{Name: chat.LocalMachine, Host: h, Log: log}
	eng, err := newEngine(cfg, here)
	if err != nil {
		return err
	}
	if bc.Engines, err = moreEngines(cfg, here); err != nil {
		return err
	}
	if bc.Engines != nil {
		bc.EngineName, bc.DefaultEngine = engineName(cfg), defaultEngine(cfg)
	}
	webView, err := webServer(cfg, store, redact.New(append([]string{cfg.Telegram.BotToken.Reveal()}, chatSecrets(cfg)...)...), log)
	if err != nil {
		return err
	}
	if webView != nil {
		bc.Web = webView
	}
	bot, err := telegram.New(bc, eng.Engine, store, log)
	if err != nil {
		return err
	}
	if webView != nil {
		webCtx, stopWeb := context.WithCancel(ctx)
		defer stopWeb()
		go func() {
			if err := webView.Serve(webCtx, bot.Core()); err != nil {
				log.Error("web view stopped", "err", err)
			}
		}()
	}
	log.Info("untether starting", "version", bc.Version, "claude_version", bc.ClaudeVersion, "config", cfg.Path,
		"state", cfg.State.Path, "working_dir", cfg.Claude.WorkingDir, "mode", cfg.Claude.Mode)
	for _, p := range privateInReach(cfg) {
		log.Warn("a private file of the bot lies where Claude Code reads without asking (working_dir, project_roots or add_dirs); "+
			"untether's path rule cannot guard reads the CLI never asks about: move the file ([state] path, --config) or the directory",
			"host", chat.LocalMachine, "path", p)
	}
	warnHostPrivateInReach(ctx, cfg, hosts, log)
	if err := bot.Run(ctx); err != nil {
		return err
	}
	log.Info("untether stopped")
	return nil
}

// maxLive is a machine's cap of live Claude processes: the configured one,
// or one per GiB of its memory (defaultMaxLive); 4 when it cannot tell.
func maxLive(ctx context.Context, configured int, h host.Host, log *slog.Logger) int {
	if configured > 0 {
		return configured
	}
	n := 4
	if m, ok := h.(host.Memory); ok {
		if total, err := m.MemTotal(ctx); err != nil {
			log.Warn("could not tell the host's memory: at most 4 live Claude processes there", "err", err)
		} else {
			n = defaultMaxLive(total)
		}
	}
	log.Info("live Claude processes capped from the host's memory", "max_live_sessions", n)
	return n
}

// startClaudeVersion asks the CLI the bot will run for its version, to
// log it and show it in /status. The bot starts without it: a CLI that
// cannot answer is reported again, with its error, when a session starts.
func startClaudeVersion(ctx context.Context, cfg *Config, log *slog.Logger) string {
	v, _, err := claudeVersion(ctx, cfg.Claude.Binary, runnerOptions(cfg, log).ChildEnv(), claudeVersionWait)
	if err != nil {
		log.Warn("could not tell the Claude Code version (untether doctor says more)", "binary", cfg.Claude.Binary, "err", err)
		return ""
	}
	return shortClaudeVersion(v)
}

// loadForRun reads the config and builds the logger (flags win over [log]).
func loadForRun(flags commonFlags, stderr io.Writer) (*Config, *slog.Logger, error) {
	path, err := ResolveConfigPath(flags.config)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		return nil, nil, err
	}
	format, level := cfg.Log.Format, cfg.Log.Level
	if flags.logFormat != "" {
		format = flags.logFormat
	}
	if flags.logLevel != "" {
		level = flags.logLevel
	}
	log, err := newLogger(stderr, format, level, chatSecrets(cfg)...)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	for _, key := range cfg.shortSecrets() {
		log.Warn("a secret is too short to be redacted from chats and logs; use a longer one",
			"key", key, "min_len", redact.MinLen)
	}
	return cfg, log, nil
}

func botConfig(cfg *Config) telegram.Config {
	return telegram.Config{
		Config: chat.Config{
			MaxBacklogAge:  cfg.Telegram.MaxBacklogAge,
			StallAfter:     stallAfter(cfg.Progress.StallAfter),
			Stream:         cfg.Progress.Stream,
			IdleTimeout:    cfg.Claude.IdleTimeout,
			DailyBudget:    cfg.Claude.DailyBudgetUSD,
			MaxTurnUSD:     cfg.Claude.MaxTurnUSD,
			Model:          cfg.Claude.Model,
			PermissionMode: cfg.Claude.PermissionMode,
			PlanMode:       cfg.Approvals.PlanMode,
			MaxLive:        cfg.Claude.MaxLiveSessions,
			WorkDir:        cfg.Claude.WorkingDir,
			ProjectRoots:   cfg.Claude.ProjectRoots,
			UploadDir:      cfg.State.Uploads,
			AddDirs:        cfg.Claude.AddDirs,
			PrivatePaths:   botPrivate(cfg),
			SkipPerms:      cfg.Claude.DangerouslySkipPermissions,
			AllowList:      approvals.MergeAllowList(cfg.Claude.AllowedTools, cfg.Approvals.AutoApprove),
			ApprovalWait:   cfg.Approvals.Timeout,
			CooldownBase:   cfg.Cooldown.Base,
			CooldownMax:    cfg.Cooldown.Max,
			Git:            projects.Git{Timeout: cfg.Projects.GitTimeout, Env: helperEnv(cfg)},
		},
		Token:        cfg.Telegram.BotToken.Reveal(),
		APIURL:       cfg.Telegram.APIURL,
		AllowedUsers: cfg.Telegram.AllowedUserIDs,
		AllowAnyUser: cfg.Telegram.AllowAnyUser,
		AllowedChats: cfg.Telegram.AllowedChatIDs,
		Approvers:    cfg.Telegram.ApproverUserIDs,
		PlainAnswers: !cfg.Progress.Rich,
		PollTimeout:  cfg.Telegram.PollTimeout,
		MinEdit:      cfg.Progress.MinEditInterval,
		GroupEdit:    cfg.Progress.GroupEditInterval,
		MaxActions:   cfg.Progress.MaxActions,
		UploadKeep:   cfg.State.UploadsKeep,
		Secrets:      chatSecrets(cfg),
		Voice:        voiceConfig(cfg),
		Speak:        speakConfig(cfg),
		WorktreesDir: cfg.Projects.WorktreesDir,
	}
}

// stallAfter is [progress] stall_after for the bot, where 0 means the
// default: "0s" in the file turns the watchdog off.
func stallAfter(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// stripEnv names the variables Claude never gets: the bot's token, the
// transcription API's key and the triggers' secrets (the bot's secrets,
// not Claude's), even when too short to strip by value (BotSecrets).
func stripEnv(cfg *Config) []string {
	out := []string{envBotToken}
	if cfg.Voice.APIKeyEnv != "" {
		out = append(out, cfg.Voice.APIKeyEnv)
	}
	if name := cfg.Voice.speakKeyEnv(); name != "" {
		out = append(out, name)
	}
	for _, h := range cfg.Triggers.Hooks { // Claude must not sign its own triggers
		out = append(out, h.SecretEnv)
	}
	return out
}

// helperEnv is the environment of the programs the bot runs itself (git,
// the transcription command): the bot's own without the secrets Claude
// never gets (the token, the transcription key, the Anthropic key without
// API billing), by the same rule as Claude's. They run as the bot's user
// and, unlike the bot (package procguard), are not hidden from the
// commands Claude runs, which could read their /proc/<pid>/environ. Unlike
// Claude's, it is not narrowed by env_allow: git and the owner's command
// keep the variables they read (XDG_CONFIG_HOME, GIT_*).
func helperEnv(cfg *Config) []string {
	o := runnerOptions(cfg, nil)
	o.EnvAllow, o.ExtraEnv = nil, nil
	return o.ChildEnv()
}

// voiceConfig is the bot's [voice]: the backend chosen, and the limits.
func voiceConfig(cfg *Config) telegram.Voice {
	v := cfg.Voice
	out := telegram.Voice{MaxDuration: v.MaxDuration, MaxSize: int64(v.MaxSizeMB) << 20}
	switch {
	case v.APIURL != "":
		out.Transcriber = &voice.API{URL: v.APIURL, Key: v.APIKey.Reveal(), Model: v.Model, Timeout: v.Timeout}
	case len(v.Command) > 0:
		out.Transcriber = &voice.Command{Args: v.Command, Timeout: v.Timeout, Env: helperEnv(cfg)}
	}
	return out
}

// defaultSpeakVoice is speak_voice's default: a voice OpenAI's speech
// models all have.
const defaultSpeakVoice = "alloy"

// speakConfig is the bot's voice replies: the speech backend chosen, the
// length spoken. The command's environment is the helpers' (no secrets).
func speakConfig(cfg *Config) telegram.Speak {
	v := cfg.Voice
	out := telegram.Speak{MaxChars: int(v.SpeakMax.Seconds() * speak.CharsPerSecond)}
	switch {
	case v.SpeakURL != "":
		name := cmp.Or(v.SpeakVoice, defaultSpeakVoice)
		out.Speaker = &speak.API{URL: v.SpeakURL, Key: v.SpeakKey.Reveal(), Model: v.SpeakModel, Voice: name, Timeout: v.Timeout}
	case len(v.SpeakCommand) > 0:
		out.Speaker = &speak.Command{Args: v.SpeakCommand, Timeout: v.Timeout, Env: helperEnv(cfg)}
	}
	return out
}

// mcpDir is the send_file server's private folder (its socket and the
// per-session MCP configs, which hold secrets), next to the state file and
// named after it: each state file has one bot.
func mcpDir(cfg *Config) string {
	base := filepath.Base(cfg.State.Path)
	return filepath.Join(filepath.Dir(cfg.State.Path), strings.TrimSuffix(base, filepath.Ext(base))+".mcp")
}

// fileServer starts listening for the send_file tool. Without it (the
// path is too long for a socket, say) the bot runs, and Claude has no
// send_file tool: a warning says why.
func fileServer(cfg *Config, log *slog.Logger) *filesend.Server {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		log.Warn("claude gets no send_file tool: cannot find the untether binary", "err", err)
		return nil
	}
	srv, err := filesend.Listen(filesend.Options{Dir: mcpDir(cfg), Binary: self, MaxSize: telegram.MaxUpload, Logger: log})
	if err != nil {
		log.Warn("claude gets no send_file tool", "err", err)
		return nil
	}
	return srv
}

// claudeEnv is the environment as the CLI gets it, as far as where it
// keeps its files goes: the bot's, then [claude.env].
func claudeEnv(cfg *Config) []string {
	env := os.Environ()
	for k, v := range cfg.Claude.Env {
		env = append(env, k+"="+v)
	}
	return env
}

// botPrivate are the bot's own files and folders on this machine: its
// config, its state, the send_file folder (the sessions' secrets) and the
// holders' folder (every chat's journal). The path rule forbids them, and
// the uploads folder (except a chat's own).
func botPrivate(cfg *Config) []string {
	return []string{cfg.Path, cfg.State.Path, mcpDir(cfg), holdDir(cfg)}
}

// privateInReach returns the bot's private files and folders here
// (botPrivate, the uploads) that lie inside a directory Claude Code reads
// without asking: the CLI decides those reads itself (cat, Read), so they
// never reach the path rule.
func privateInReach(cfg *Config) []string {
	return inReach(nil, append(botPrivate(cfg), cfg.State.Uploads),
		slices.Concat([]string{cfg.Claude.WorkingDir}, cfg.Claude.ProjectRoots, cfg.Claude.AddDirs))
}

// inReach returns those of private that a directory of reach holds on h,
// by the path rule there (links, "~" and ".." resolved on h).
func inReach(h host.Host, private, reach []string) []string {
	rule := scope.Rule{Host: h, Roots: reach, Forbidden: private}
	var out []string
	for _, p := range private {
		// Forbidden: a root holds it, and it is forbidden all the same.
		if rule.Check(p).Forbidden {
			out = append(out, p)
		}
	}
	return out
}

// chatSecrets are values that must never reach a chat: configured secrets
// and API keys in the environment Claude inherits (its stderr is shown).
func chatSecrets(cfg *Config) []string {
	out := cfg.Secrets()
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "UNTETHER_BOT_TOKEN"} {
		if v := os.Getenv(k); v != "" {
			out = append(out, v)
		}
	}
	return out
}
