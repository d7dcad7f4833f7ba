package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/redact"
)

// cmdDoctor checks the setup the way the bot would use it: one ✓/✗ line
// per check, a fix under every ✗, and an error (exit status 1) if any
// check failed.
func cmdDoctor(ctx context.Context, args []string, stdout io.Writer) error {
	flags, err := parseFlags("doctor", args, stdout)
	if err != nil {
		return err
	}
	return newDoctor().run(ctx, flags.config, stdout)
}

// check is the outcome of one check.
type check struct {
	name string
	ok   bool
	msg  string   // what was found, one line
	more []string // details, one line each
	fix  string   // what to do about it (failures only)
}

func pass(name, format string, args ...any) check {
	return check{name: name, ok: true, msg: fmt.Sprintf(format, args...)}
}

func fail(name, msg, fix string, more ...string) check {
	return check{name: name, msg: msg, fix: fix, more: more}
}

// doctor holds the bounds of the checks that wait on something else.
type doctor struct {
	httpTimeout   time.Duration // getMe
	claudeTimeout time.Duration // claude --version (Node starts slowly on a cold cache)
	lockTimeout   time.Duration // how long a running bot may hold the state file before we say so

	cfg        *Config
	configErrs []error // loading problems no specific check has claimed yet
}

func newDoctor() *doctor {
	return &doctor{httpTimeout: 15 * time.Second, claudeTimeout: claudeVersionWait, lockTimeout: 500 * time.Millisecond}
}

func (d *doctor) run(ctx context.Context, configFlag string, w io.Writer) error {
	path, err := ResolveConfigPath(configFlag)
	if err == nil {
		d.cfg, err = decodeConfig(path, os.Getenv)
	}
	if d.cfg == nil {
		// Nothing else can be checked without the file.
		fix := "fix the file (see untether.toml.example and docs/configuration.md), then run untether doctor again"
		if errors.Is(err, fs.ErrNotExist) {
			fix = "run untether init to create it (docs/setup.md), or pass --config PATH"
		}
		report(w, []string{strings.TrimSpace(os.Getenv(envBotToken))}, fail("config", err.Error(), fix))
		return errors.New("the config file could not be read")
	}
	if err != nil {
		d.configErrs = splitErrors(err)
	}
	// Each specific check claims the loading problems of its own keys, so
	// that every problem is reported once, under the most helpful heading;
	// the config line gets what is left. It is computed last, shown first.
	checks := []check{
		d.checkToken(ctx),
		d.checkAllowlist(),
		d.checkClaude(ctx),
		d.checkWorkDir(),
		d.checkState(ctx),
		d.checkHeld(),
		d.checkPermissionMode(),
	}
	checks = append(checks, d.checkCodex(ctx)...)
	checks = append(checks, d.checkHosts(ctx)...)
	checks = append([]check{d.checkConfig()}, checks...)
	secrets := chatSecrets(d.cfg) // the bot's own list: the Anthropic keys in the environment too
	failed := 0
	for _, c := range checks {
		report(w, secrets, c)
		if !c.ok {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d checks failed", failed, len(checks))
	}
	fmt.Fprintf(w, "All %d checks passed.\n", len(checks))
	return nil
}

// report prints one check; secrets are removed from everything printed.
func report(w io.Writer, secrets []string, c check) {
	mark := "✓"
	if !c.ok {
		mark = "✗"
	}
	lines := []string{fmt.Sprintf("%s %s: %s", mark, c.name, c.msg)}
	for _, m := range c.more {
		lines = append(lines, "    "+m)
	}
	if !c.ok && c.fix != "" {
		lines = append(lines, "    fix: "+c.fix)
	}
	r := redact.New(secrets...)
	for _, l := range lines {
		fmt.Fprintln(w, r.String(l))
	}
}

// count is "1 problem", "2 problems".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func splitErrors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// claim removes and returns the loading problems about keys starting with
// one of the prefixes (as config.go words them: "[section] key...").
func (d *doctor) claim(prefixes ...string) []string {
	var mine []string
	rest := d.configErrs[:0:0]
	for _, e := range d.configErrs {
		msg := e.Error()
		owned := false
		for _, p := range prefixes {
			if strings.HasPrefix(msg, p) {
				owned = true
			}
		}
		if owned {
			mine = append(mine, msg)
		} else {
			rest = append(rest, e)
		}
	}
	d.configErrs = rest
	return mine
}

func (d *doctor) checkConfig() check {
	if len(d.configErrs) == 0 {
		return pass("config", "%s", d.cfg.Path)
	}
	more := make([]string, 0, len(d.configErrs))
	for _, e := range d.configErrs {
		more = append(more, e.Error())
	}
	return fail("config", fmt.Sprintf("%s: the bot would refuse to start with %s:", d.cfg.Path, count(len(more), "problem")),
		"correct the keys named above (docs/configuration.md describes each; an unknown key is usually a typo)", more...)
}

const tokenFix = "copy the current token from @BotFather (/mybots → your bot → API Token; after /revoke only the new one works) " +
	"into [telegram] bot_token or $" + envBotToken

func (d *doctor) checkToken(ctx context.Context) check {
	const name = "bot token"
	bad := d.claim("[telegram] bot_token")
	badURL := d.claim("[telegram] api_url")
	tok, api := d.cfg.Telegram.BotToken.Reveal(), d.cfg.Telegram.APIURL
	switch {
	case tok == "":
		return fail(name, "not set", "talk to @BotFather on Telegram (/newbot), then put the token in [telegram] bot_token or $"+envBotToken)
	case len(bad) > 0:
		return fail(name, "malformed: it contains spaces or URL characters", "paste the token exactly as @BotFather sent it")
	case len(badURL) > 0:
		return fail(name, "not checked: [telegram] api_url is not an http(s) URL",
			`set [telegram] api_url to "https://api.telegram.org" (the default) or to your own Bot API server`, badURL...)
	}
	ctx, cancel := context.WithTimeout(ctx, d.httpTimeout)
	defer cancel()
	bot := botAPI{url: api, token: tok}
	var me botUser
	err := bot.call(ctx, "getMe", nil, &me)
	if err == nil {
		c := pass(name, "valid: the bot is @%s (id %d)", me.Username, me.ID)
		if note := d.webhookNote(ctx, bot); note != "" {
			c.more = append(c.more, note)
		}
		return c
	}
	msg, fix := tokenProblem(api, err)
	return fail(name, msg, fix)
}

// tokenProblem says what a failed getMe means, and what to do about it.
func tokenProblem(api string, err error) (msg, fix string) {
	var refused *apiRefused
	var notAPI *apiNotBotAPI
	switch {
	case errors.As(err, new(*apiUnreachable)):
		return fmt.Sprintf("could not reach %s: %v", api, err),
			"check the network, a proxy ($HTTPS_PROXY) and [telegram] api_url"
	case errors.As(err, &notAPI):
		return fmt.Sprintf("%s answered %v", api, notAPI),
			"check [telegram] api_url: the server's base URL, without /bot…"
	case errors.As(err, &refused) && refused.badToken():
		return fmt.Sprintf("Telegram rejected it (%v)", refused), tokenFix
	case errors.As(err, &refused):
		return fmt.Sprintf("getMe failed: %d %s", refused.status, refused.desc), "try again later; check [telegram] api_url"
	}
	return err.Error(), "try again; check the network"
}

func (d *doctor) checkAllowlist() check {
	const name = "allowlist"
	bad := d.claim("[telegram] allowed_user_ids")
	t := d.cfg.Telegram
	groups := ""
	if n := len(t.AllowedChatIDs); n > 0 {
		groups = fmt.Sprintf(", in private chats and %s", count(n, "group"))
	}
	switch {
	case len(t.AllowedUserIDs) == 0 && !t.AllowAnyUser:
		return fail(name, "empty: the bot answers nobody",
			"put your numeric Telegram user id in [telegram] allowed_user_ids, e.g. allowed_user_ids = [123456789] "+
				"(message the bot and it replies with your id, or ask @userinfobot)")
	case len(bad) > 0:
		return fail(name, "has entries that are not user ids", "user ids are positive; group chats (negative ids) go in allowed_chat_ids", bad...)
	case t.AllowAnyUser:
		return pass(name, "allow_any_user = true: anyone who finds the bot can run Claude on this machine%s", groups)
	}
	return pass(name, "%s may use the bot%s", count(len(t.AllowedUserIDs), "user"), groups)
}

func (d *doctor) checkClaude(ctx context.Context) check {
	const name = "claude"
	install := "install Claude Code (npm install -g @anthropic-ai/claude-code) or set [claude] binary to its full path " +
		"(`command -v claude` in your shell; a service often has a shorter PATH)"
	if bad := d.claim("[claude] binary"); len(bad) > 0 {
		return fail(name, "[claude] binary is empty", install)
	}
	want := d.cfg.Claude.Binary
	bin, err := exec.LookPath(want)
	if err != nil {
		return fail(name, fmt.Sprintf("%s not found: %v", want, errors.Unwrap(err)), install)
	}
	// The environment the bot gives Claude, so that an env_allow too
	// narrow for the CLI shows up here.
	version, stderr, err := claudeVersion(ctx, bin, runnerOptions(d.cfg, nil).ChildEnv(), d.claudeTimeout)
	runIt := fmt.Sprintf("run `%s --version` as the user running untether to see why (Claude Code needs Node.js)", bin)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fail(name, fmt.Sprintf("%s --version did not answer within %s", bin, d.claudeTimeout), runIt)
	case errors.Is(err, errNoVersion):
		return fail(name, fmt.Sprintf("%s --version printed nothing", bin), runIt+"; is [claude] binary really Claude Code?")
	case err != nil:
		return fail(name, err.Error(), runIt, lastLines(stderr, 3)...)
	}
	return pass(name, "%s, version %s", bin, version)
}

func lastLines(s string, n int) []string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	return lines[max(0, len(lines)-n):]
}

func (d *doctor) checkWorkDir() check {
	const name = "working dir"
	bad := d.claim("[claude] working_dir")
	dir := d.cfg.Claude.WorkingDir
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail(name, dir+" does not exist",
			fmt.Sprintf("create it (mkdir -p %s) or set [claude] working_dir to the project Claude should work in", dir))
	case err != nil:
		return fail(name, err.Error(), "set [claude] working_dir to a directory the user running untether can use", bad...)
	case !info.IsDir():
		return fail(name, dir+" is not a directory", "set [claude] working_dir to a directory")
	}
	if err := probeWritable(dir); err != nil {
		return fail(name, fmt.Sprintf("%s is not writable: %v", dir, err),
			"let the user running untether write there (chown/chmod) or choose another working_dir: Claude edits files in it")
	}
	for _, r := range d.cfg.Claude.ProjectRoots {
		if info, err := os.Stat(r); err != nil || !info.IsDir() {
			return fail(name, fmt.Sprintf("[claude] project_roots: %s is not a directory", r),
				"create it or remove it from project_roots: /cwd can only choose directories inside existing roots")
		}
	}
	if n := len(d.cfg.Claude.ProjectRoots); n > 0 {
		return pass(name, "%s exists and is writable; /cwd may choose inside %s", dir, count(n, "project root"))
	}
	return pass(name, "%s exists and is writable", dir)
}

// probeWritable creates and removes a file in dir.
func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".untether-doctor-*")
	if err != nil {
		return errors.Unwrap(err)
	}
	return errors.Join(f.Close(), os.Remove(f.Name()))
}

func (d *doctor) checkState(ctx context.Context) check {
	const name = "state file"
	path := d.cfg.State.Path
	info, err := os.Stat(path)
	switch {
	case err == nil && info.IsDir():
		d.claim("[state] path") // config.go's words for the same problem
		return fail(name, path+" is a directory", "set [state] path to a file, e.g. "+filepath.Join(path, "untether.db"))
	case errors.Is(err, fs.ErrNotExist):
		// Opening would create it; doctor only looks.
		dir := filepath.Dir(path)
		for {
			if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
				break
			}
			dir = filepath.Dir(dir)
		}
		if err := probeWritable(dir); err != nil {
			return fail(name, fmt.Sprintf("%s cannot be created: %s is not writable (%v)", path, dir, err),
				"make the directory writable for the user running untether, or set [state] path elsewhere")
		}
		return pass(name, "%s does not exist yet; the bot creates it on its first start", path)
	case err != nil:
		return fail(name, err.Error(), "check the permissions of the file and its directory")
	}
	store, err := prefs.Open(ctx, path, prefs.WithLockTimeout(d.lockTimeout),
		prefs.WithLogger(slog.New(slog.DiscardHandler)))
	switch {
	case errors.Is(err, prefs.ErrLocked):
		return fail(name, err.Error(),
			"only one untether can use a state file. If that is the bot you mean to run, this is expected and the other "+
				"checks still apply; otherwise stop it, or give this config its own [state] path")
	case errors.Is(err, prefs.ErrCorrupt):
		return fail(name, err.Error(),
			"with the bot stopped, restore a backup, or move the file aside to start fresh (chat settings and session ids are lost); see docs/operations.md")
	case errors.Is(err, prefs.ErrNewerSchema):
		return fail(name, err.Error(), "run the newer untether again, or restore a backup made by this version")
	case err != nil:
		return fail(name, err.Error(), "the file should belong to the user running untether (mode 0600)")
	}
	chats, err := store.KnownChats()
	pending, perr := store.AllPendingPrompts()
	if cerr := store.Close(); err == nil && perr == nil {
		err = cerr
	}
	if err = errors.Join(err, perr); err != nil {
		return fail(name, err.Error(), "see docs/operations.md about restoring a backup")
	}
	msg := fmt.Sprintf("%s opens, not in use by a running bot (%s known", path, count(len(chats), "chat"))
	if len(pending) > 0 {
		msg += fmt.Sprintf(", %s waiting to run on the next start", count(len(pending), "message"))
	}
	return pass(name, "%s)", msg)
}

func (d *doctor) checkPermissionMode() check {
	const name = "permission mode"
	c := d.cfg.Claude
	if bad := d.claim("[claude] permission_mode"); len(bad) > 0 {
		return fail(name, fmt.Sprintf("%q is not a permission mode", c.PermissionMode),
			"set [claude] permission_mode to one of "+strings.Join(permissionModes, ", ")+", or remove it for Claude Code's default")
	}
	switch {
	case c.DangerouslySkipPermissions:
		return pass(name, "dangerously_skip_permissions = true: Claude runs every tool without asking")
	case c.PermissionMode == engine.ModeBypass:
		return pass(name, engine.ModeBypass+": Claude runs every tool without asking")
	case c.PermissionMode == "":
		return pass(name, "not set: Claude Code's default (tools that need permission ask you in Telegram)")
	}
	return pass(name, "%s", c.PermissionMode)
}

// webhookNote says whether a webhook is set for the bot: long polling
// cannot run beside one, so the bot removes it when it starts (another
// program that set it stops receiving updates). Not a failure, but worth
// knowing before that happens. Empty when none is set or it cannot be told.
func (d *doctor) webhookNote(ctx context.Context, bot botAPI) string {
	var info struct {
		URL     string `json:"url"`
		Pending int    `json:"pending_update_count"`
	}
	if bot.call(ctx, "getWebhookInfo", nil, &info) != nil || info.URL == "" {
		return ""
	}
	host := "another server"
	if u, err := url.Parse(info.URL); err == nil && u.Host != "" {
		host = u.Host // the path may hold a secret
	}
	return fmt.Sprintf("note: a webhook is set (to %s, %d updates pending); untether removes it when it starts, "+
		"since it uses long polling, and whatever set it stops receiving updates", host, info.Pending)
}
