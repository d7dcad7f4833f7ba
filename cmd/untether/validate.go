package main

import (
	"fmt"
	"math"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/redact"
	"github.com/untether/untether/scope"
)

// urlHasHTTPScheme reports whether s is an absolute http(s) URL with a host.
func urlHasHTTPScheme(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// Flags the runner sets itself; passing them again through extra_args would
// break the stream-json protocol or fight a dedicated key.
var managedFlags = map[string]string{
	"-p": "", "--print": "", "--verbose": "", "--input-format": "", "--output-format": "",
	"--permission-prompt-tool": "", "-r": "", "--resume": "", "-c": "", "--continue": "", "--session-id": "",
	"--model":                        "use [claude] model",
	"--permission-mode":              "use [claude] permission_mode",
	"--allowedTools":                 "use [claude] allowed_tools",
	"--allowed-tools":                "use [claude] allowed_tools",
	"--dangerously-skip-permissions": "use [claude] dangerously_skip_permissions",
	"--include-partial-messages":     "use [claude] include_partial_messages",
	"--add-dir":                      "use [claude] add_dirs",
	"--max-budget-usd":               "use [claude] max_turn_usd",
	"--mcp-config":                   "untether passes its own; add your MCP servers to Claude Code's settings (claude mcp add) instead",
}

// tokenMalformed reports whether tok holds characters no token has, which
// would also break the Bot API URL.
func tokenMalformed(tok string) bool { return strings.ContainsAny(tok, " \t\r\n/?#%") }

// permissionModes are the values of [claude] permission_mode: the bot's
// modes, which the engine maps to Claude Code's.
var permissionModes = engine.Modes

// validate checks every value and returns one error per problem.
func (c *Config) validate() []error {
	var errs []error
	bad := func(section, key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("[%s] %s: %s (in %s)", section, key, fmt.Sprintf(format, args...), c.Path))
	}
	oneOf := func(section, key, v string, valid ...string) {
		if !slices.Contains(valid, v) {
			bad(section, key, "%q is not one of %s", v, strings.Join(valid, ", "))
		}
	}
	atLeast := func(section, key string, d, min time.Duration) {
		if d < min {
			bad(section, key, "%v is below the minimum %v", d, min)
		}
	}

	t := &c.Telegram
	switch tok := t.BotToken.Reveal(); {
	case tok == "":
		errs = append(errs, fmt.Errorf("[telegram] bot_token is not set (in %s): talk to @BotFather on Telegram, "+
			"send /newbot, and put the token it gives you in [telegram] bot_token or in $%s", c.Path, envBotToken))
	case tokenMalformed(tok):
		// Never echo the token: it goes into logs and chat messages.
		bad("telegram", "bot_token", "contains spaces or URL characters; paste the token exactly as @BotFather sent it")
	}
	if !urlHasHTTPScheme(t.APIURL) {
		bad("telegram", "api_url", "%q is not an http:// or https:// URL", t.APIURL)
	}
	if len(t.AllowedUserIDs) == 0 && !t.AllowAnyUser {
		errs = append(errs, fmt.Errorf("[telegram] allowed_user_ids is empty (in %s): the bot answers nobody until you list "+
			"your numeric Telegram user id (for example from @userinfobot), e.g. allowed_user_ids = [123456789]; "+
			"allow_any_user = true lets anyone who finds the bot run Claude on this machine", c.Path))
	}
	for _, id := range t.AllowedUserIDs {
		if id <= 0 {
			bad("telegram", "allowed_user_ids", "%d is not a user id (user ids are positive; group chats go in allowed_chat_ids)", id)
		}
	}
	allowed := map[int64]bool{}
	for _, id := range t.AllowedUserIDs {
		allowed[id] = true
	}
	for _, id := range t.ApproverUserIDs {
		if !t.AllowAnyUser && !allowed[id] {
			bad("telegram", "approver_user_ids", "%d is not in allowed_user_ids: an approver must also be allowed to use the bot", id)
		}
	}
	for _, id := range t.AllowedChatIDs {
		if id == 0 {
			bad("telegram", "allowed_chat_ids", "0 is not a chat id")
		}
	}
	atLeast("telegram", "max_backlog_age", t.MaxBacklogAge, time.Second)
	atLeast("telegram", "poll_timeout", t.PollTimeout, time.Second)

	cl := &c.Claude
	if cl.Binary == "" {
		bad("claude", "binary", "must not be empty")
	}
	if fi, err := os.Stat(cl.WorkingDir); err != nil {
		bad("claude", "working_dir", "%v", err)
	} else if !fi.IsDir() {
		bad("claude", "working_dir", "%s is not a directory", cl.WorkingDir)
	}
	for _, d := range cl.AddDirs {
		// Passed to the CLI and trusted for reads: a typo must not pass
		// silently.
		if fi, err := os.Stat(d); err != nil {
			bad("claude", "add_dirs", "%v", err)
		} else if !fi.IsDir() {
			bad("claude", "add_dirs", "%s is not a directory", d)
		}
	}
	if cl.PermissionMode != "" {
		oneOf("claude", "permission_mode", cl.PermissionMode, permissionModes...)
	}
	for _, tool := range cl.AllowedTools {
		if strings.TrimSpace(tool) == "" {
			bad("claude", "allowed_tools", "empty tool name")
		}
	}
	for _, arg := range cl.ExtraArgs {
		flag, _, _ := strings.Cut(arg, "=")
		if why, ok := managedFlags[flag]; ok {
			if why == "" {
				why = "untether sets it itself"
			}
			bad("claude", "extra_args", "%q is not allowed: %s", arg, why)
		}
	}
	oneOf("claude", "mode", cl.Mode, ModeInteractive, ModeOneshot)
	atLeast("claude", "idle_timeout", cl.IdleTimeout, 0)
	atLeast("claude", "durable_wait", cl.DurableWait, time.Minute)
	atLeast("state", "uploads_keep", c.State.UploadsKeep, 0)
	atLeast("projects", "git_timeout", c.Projects.GitTimeout, time.Second)
	if w := c.Projects.WorktreesDir; w != "" {
		// The rule /branch applies: a folder refused here would be refused there.
		switch v := scope.InRoots(w, c.roots()); {
		case v.Invisible:
			bad("projects", "worktrees_dir", "%q holds an invisible or direction-changing character; no chat may work in such a folder", w)
		case !v.Inside:
			bad("projects", "worktrees_dir", "%s is outside the directories the bot may work in (%s): /branch could never use a worktree there; "+
				"put it inside [claude] project_roots", w, strings.Join(c.roots(), ", "))
		}
	}
	if cl.MaxLiveSessions < 0 {
		bad("claude", "max_live_sessions", "%d is below 0 (0 takes the default from this machine's memory)", cl.MaxLiveSessions)
	}
	c.validateHosts(bad)
	c.validateCodex(bad)
	c.validateWeb(bad)
	dollars := func(key string, v float64) {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			bad("claude", key, "%v is not an amount of dollars (0 means no limit)", v)
		}
	}
	dollars("daily_budget_usd", cl.DailyBudgetUSD)
	dollars("max_turn_usd", cl.MaxTurnUSD)
	tok := c.Telegram.BotToken.Reveal()
	for name := range cl.Env {
		switch {
		case name == "" || strings.ContainsAny(name, "=\x00"):
			bad("claude", "env", "%q is not a valid environment variable name", name)
		case name == "ANTHROPIC_API_KEY" && !cl.UseAPIBilling:
			bad("claude", "env", "ANTHROPIC_API_KEY is removed from Claude's environment unless use_api_billing = true")
		case name == envBotToken:
			bad("claude", "env", "%s is never passed to Claude", envBotToken)
		case len(tok) >= redact.MinLen && strings.Contains(cl.Env[name], tok):
			// Never echo the value: this message is logged.
			bad("claude", "env", "%s holds the bot token, which is never passed to Claude (it would let Claude act as the bot)", name)
		}
	}
	for _, name := range cl.EnvAllow {
		switch {
		case name == "" || strings.ContainsAny(name, "=\x00"):
			bad("claude", "env_allow", "%q is not a valid environment variable name", name)
		case name == envBotToken:
			bad("claude", "env_allow", "%s is never passed to Claude", envBotToken)
		}
	}

	p := &c.Progress
	atLeast("progress", "min_edit_interval", p.MinEditInterval, 100*time.Millisecond)
	atLeast("progress", "group_edit_interval", p.GroupEditInterval, 100*time.Millisecond)
	if p.MaxActions < 1 || p.MaxActions > 50 {
		bad("progress", "max_actions", "%d is outside 1..50", p.MaxActions)
	}
	if p.StallAfter != 0 { // 0: no watchdog
		atLeast("progress", "stall_after", p.StallAfter, 30*time.Second)
	}
	oneOf("progress", "stream", p.Stream, "off", "edits", "drafts")

	a := &c.Approvals
	atLeast("approvals", "timeout", a.Timeout, time.Second)
	for _, tool := range a.AutoApprove {
		if strings.TrimSpace(tool) == "" {
			bad("approvals", "auto_approve", "empty tool name")
		}
	}
	oneOf("approvals", "plan_mode", a.PlanMode, PlanModeOff, PlanModeOn, PlanModeAuto)

	atLeast("cooldown", "base", c.Cooldown.Base, 0)
	if c.Cooldown.Base > 0 && c.Cooldown.Max < c.Cooldown.Base {
		bad("cooldown", "max", "%v is below base (%v)", c.Cooldown.Max, c.Cooldown.Base)
	}

	c.validateVoice(bad)

	if fi, err := os.Stat(c.State.Path); err == nil && fi.IsDir() {
		bad("state", "path", "%s is a directory; name the database file", c.State.Path)
	}
	oneOf("log", "format", c.Log.Format, "text", "json")
	oneOf("log", "level", c.Log.Level, "debug", "info", "warn", "error")
	return errs
}

// validateVoice checks [voice]: one backend, each complete.
func (c *Config) validateVoice(bad func(section, key, format string, args ...any)) {
	v := &c.Voice
	api, cmd := v.APIURL != "", len(v.Command) > 0
	switch {
	case api && cmd:
		bad("voice", "command", "set either api_url or command, not both")
	case api:
		if !urlHasHTTPScheme(v.APIURL) {
			bad("voice", "api_url", "%q is not an http:// or https:// URL (the API's base, e.g. https://api.openai.com/v1)", v.APIURL)
		}
		if v.Model == "" {
			bad("voice", "model", "is needed with api_url (e.g. whisper-1 for OpenAI, whisper-large-v3 for Groq)")
		}
	case cmd:
		if strings.TrimSpace(v.Command[0]) == "" {
			bad("voice", "command", "the program's name is empty")
		}
		if !slices.ContainsFunc(v.Command, func(a string) bool { return strings.Contains(a, "{file}") }) {
			bad("voice", "command", "no argument holds {file}, so the recording would not reach the program")
		}
	}
	// api_key_env serves the speech API too when it has no key of its own.
	switch name := v.APIKeyEnv; {
	case name == "":
	case !api && (v.SpeakURL == "" || v.SpeakKeyEnv != ""):
		bad("voice", "api_key_env", "is only used with api_url (or speak_url without speak_key_env)")
	default:
		checkKeyEnv(bad, "api_key_env", name, api && v.APIKey == "" || !api && v.SpeakKey == "")
	}
	if v.Model != "" && !api {
		bad("voice", "model", "is only used with api_url")
	}
	if v.Timeout < time.Second {
		bad("voice", "timeout", "%v is below the minimum 1s", v.Timeout)
	}
	if v.MaxDuration < time.Second {
		bad("voice", "max_duration", "%v is below the minimum 1s", v.MaxDuration)
	}
	if v.MaxSizeMB < 1 || v.MaxSizeMB > 20 {
		bad("voice", "max_size_mb", "%d is outside 1..20 (Telegram lets bots download files of up to 20 MB)", v.MaxSizeMB)
	}
	c.validateSpeak(bad)
}

// validateSpeak checks [voice]'s speak_* keys: one speech backend, each
// complete, like transcription's.
func (c *Config) validateSpeak(bad func(section, key, format string, args ...any)) {
	v := &c.Voice
	api, cmd := v.SpeakURL != "", len(v.SpeakCommand) > 0
	switch {
	case api && cmd:
		bad("voice", "speak_command", "set either speak_url or speak_command, not both")
	case api:
		if !urlHasHTTPScheme(v.SpeakURL) {
			bad("voice", "speak_url", "%q is not an http:// or https:// URL (the API's base, e.g. https://api.openai.com/v1)", v.SpeakURL)
		}
		if v.SpeakModel == "" {
			bad("voice", "speak_model", "is needed with speak_url (e.g. gpt-4o-mini-tts or tts-1 for OpenAI)")
		}
	case cmd:
		if strings.TrimSpace(v.SpeakCommand[0]) == "" {
			bad("voice", "speak_command", "the program's name is empty")
		}
	}
	switch name := v.SpeakKeyEnv; {
	case name == "":
	case !api:
		bad("voice", "speak_key_env", "is only used with speak_url")
	default:
		checkKeyEnv(bad, "speak_key_env", name, v.SpeakKey == "")
	}
	if !api && v.SpeakModel != "" {
		bad("voice", "speak_model", "is only used with speak_url")
	}
	if !api && v.SpeakVoice != "" {
		bad("voice", "speak_voice", "is only used with speak_url")
	}
	if v.SpeakMax < 5*time.Second || v.SpeakMax > 10*time.Minute {
		bad("voice", "speak_max", "%v is outside 5s..10m", v.SpeakMax)
	}
}

// checkKeyEnv checks a variable that holds an API key: its name, and
// that it is set (empty: it is not).
func checkKeyEnv(bad func(section, key, format string, args ...any), key, name string, empty bool) {
	switch {
	case strings.ContainsAny(name, "=\x00 "):
		bad("voice", key, "%q is not a valid environment variable name", name)
	case name == envBotToken:
		bad("voice", key, "%s is the bot's token, not an API key", envBotToken)
	case empty:
		bad("voice", key, "$%s is empty or not set in the bot's environment", name)
	}
}

// roots are the directories a chat may work in: project_roots, or
// working_dir alone.
func (c *Config) roots() []string {
	if len(c.Claude.ProjectRoots) > 0 {
		return c.Claude.ProjectRoots
	}
	return []string{c.Claude.WorkingDir}
}
