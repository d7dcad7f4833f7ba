package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/untether/untether/telegram/view"
)

// initFlags are untether init's flags: each answers one question, so that
// a script (or a test) can run init with no terminal at all.
type initFlags struct {
	config string
	apiURL string
	dir    string        // the default project directory
	claude string        // the claude executable
	userID int64         // the owner, instead of waiting for their message
	wait   time.Duration // how long to wait for the owner's message
	force  bool          // replace an existing config without asking
}

func parseInitFlags(args []string, out io.Writer) (initFlags, error) {
	var f initFlags
	fs := flag.NewFlagSet("untether init", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&f.config, "config", "", "where to write the config (default $UNTETHER_CONFIG, else ~/.untether/untether.toml)")
	fs.StringVar(&f.apiURL, "api-url", defaultConfig().Telegram.APIURL, "Bot API server")
	fs.StringVar(&f.dir, "dir", "", "the directory Claude works in (default: ask; the current one)")
	fs.StringVar(&f.claude, "claude", "", "the claude executable (default: found on PATH or where installers put it)")
	fs.Int64Var(&f.userID, "user-id", 0, "your numeric Telegram user id, instead of sending the bot a message")
	fs.DurationVar(&f.wait, "wait", 5*time.Minute, "how long to wait for your message to the bot")
	fs.BoolVar(&f.force, "force", false, "replace an existing config without asking")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return f, err
		}
		return f, fmt.Errorf("%w: %v", errUsage, err)
	}
	switch {
	case fs.NArg() > 0:
		return f, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case f.wait <= 0:
		return f, fmt.Errorf("%w: --wait must be positive", errUsage)
	case f.userID < 0:
		return f, fmt.Errorf("%w: --user-id %d is not a user id (user ids are positive)", errUsage, f.userID)
	case !urlHasHTTPScheme(f.apiURL):
		return f, fmt.Errorf("%w: --api-url %q is not an http:// or https:// URL", errUsage, f.apiURL)
	}
	f.apiURL = strings.TrimRight(f.apiURL, "/")
	return f, nil
}

// setup is one run of untether init.
type setup struct {
	flags  initFlags
	in     *bufio.Reader
	tty    int // stdin's descriptor when it is a terminal (the token is read without echo), else -1
	out    io.Writer
	client *http.Client // nil: http.DefaultClient
	getenv func(string) string
	// candidates lists where claude may be besides PATH.
	candidates func() []string
	doctor     *doctor
}

// cmdInit walks from a bot token to a config the bot starts with: it
// checks the token, learns the owner's user id from their first message,
// finds claude, asks for the project directory, writes the file and runs
// the doctor's checks on it.
func cmdInit(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	f, err := parseInitFlags(args, stdout)
	if err != nil {
		return err
	}
	return newSetup(ctx, f, stdin, stdout).run(ctx)
}

func newSetup(ctx context.Context, f initFlags, stdin io.Reader, stdout io.Writer) *setup {
	s := &setup{flags: f, in: bufio.NewReader(stdin), tty: -1, out: stdout, getenv: os.Getenv, doctor: newDoctor(),
		candidates: defaultClaudeCandidates(ctx)}
	if file, ok := stdin.(*os.File); ok && term.IsTerminal(int(file.Fd())) {
		s.tty = int(file.Fd())
	}
	return s
}

func (s *setup) run(ctx context.Context) error {
	path, err := ResolveConfigPath(s.flags.config)
	if err == nil {
		path, err = filepath.Abs(path)
	}
	if err != nil {
		return err
	}
	if err := s.mayWrite(path); err != nil {
		return err
	}
	bot, me, err := s.checkToken(ctx)
	if err != nil {
		return err
	}
	owner, err := s.owner(ctx, bot, me)
	if err != nil {
		return err
	}
	claude, err := s.findClaude(ctx)
	if err != nil {
		return err
	}
	dir, err := s.workDir()
	if err != nil {
		return err
	}
	text, err := configText(s.flags.apiURL, bot.token, owner.ID, claude, dir)
	if err != nil {
		return err
	}
	if err := writeConfig(path, text); err != nil {
		return err
	}
	fmt.Fprintf(s.out, "✓ Wrote %s (mode 0600: it holds the bot token).\n", path)
	if owner.asked {
		s.tellOwner(ctx, bot, owner.ID)
	}
	fmt.Fprintf(s.out, "\nChecking the setup (untether doctor):\n")
	if err := s.doctor.run(ctx, path, s.out); err != nil {
		return fmt.Errorf("%s is written, but %w: fix what is marked ✗ above, then run untether doctor", path, err)
	}
	if cfg, err := LoadConfig(path); err == nil {
		for _, p := range privateInReach(cfg) {
			fmt.Fprintf(s.out, "note: %s lies inside the directory Claude works in, where it reads without asking; "+
				"a project directory of its own is safer\n", p)
		}
	}
	prog, config := startCommand(path)
	fmt.Fprintf(s.out, "\nStart the bot:\n  %s%s\n", prog, config)
	if prog == goRun {
		fmt.Fprintf(s.out, "To run it as a service, install it (go install ./cmd/untether), then: untether service install%s\n", config)
	} else {
		fmt.Fprintf(s.out, "To run it as a service (systemd): %s service install%s\n", prog, config)
	}
	return nil
}

// mayWrite refuses to replace an existing config unless --force or the
// user says yes: it may hold settings init does not know about.
func (s *setup) mayWrite(path string) error {
	_, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(s.out, "untether init writes %s.\n", path)
		return nil
	case err != nil:
		return fmt.Errorf("config %s: %w", path, err)
	case s.flags.force:
		fmt.Fprintf(s.out, "untether init replaces %s (--force).\n", path)
		return nil
	}
	if s.confirm(path + " exists. Replace it?") {
		return nil
	}
	return fmt.Errorf("%s exists and was left as it is: pass --force to replace it, or --config PATH to write another file", path)
}

// checkToken gets the token ($UNTETHER_BOT_TOKEN, else typed) and asks
// Telegram whose it is.
func (s *setup) checkToken(ctx context.Context) (botAPI, botUser, error) {
	tok := strings.TrimSpace(s.getenv(envBotToken))
	if tok != "" {
		fmt.Fprintf(s.out, "Bot token: from $%s.\n", envBotToken)
	} else {
		fmt.Fprintf(s.out, "\nCreate a bot: in Telegram, open @BotFather, send /newbot, choose a name and a username ending in \"bot\".\n")
		var err error
		if tok, err = s.askSecret("Paste the token BotFather sent (it is not shown)"); err != nil {
			return botAPI{}, botUser{}, err
		}
	}
	switch {
	case tok == "":
		return botAPI{}, botUser{}, fmt.Errorf("no bot token: paste the one @BotFather sent, or set $%s", envBotToken)
	case tokenMalformed(tok):
		return botAPI{}, botUser{}, errors.New("the bot token contains spaces or URL characters: paste it exactly as @BotFather sent it")
	}
	bot := botAPI{url: s.flags.apiURL, token: tok, client: s.client}
	ctx, cancel := context.WithTimeout(ctx, s.doctor.httpTimeout)
	defer cancel()
	var me botUser
	if err := bot.call(ctx, "getMe", nil, &me); err != nil {
		msg, fix := tokenProblem(s.flags.apiURL, err)
		return botAPI{}, botUser{}, fmt.Errorf("the bot token does not work: %s\n    fix: %s", msg, fix)
	}
	fmt.Fprintf(s.out, "✓ The token works: the bot is @%s (%s).\n", me.Username, me.FirstName)
	return bot, me, nil
}

// findClaude is --claude, else claude on PATH or where installers put it,
// else a path the user types; "claude" when nothing is found, for the
// doctor to explain.
func (s *setup) findClaude(ctx context.Context) (string, error) {
	bin := s.flags.claude
	if bin != "" {
		p, err := exec.LookPath(bin)
		if err != nil {
			return "", fmt.Errorf("--claude %s: %w", bin, errors.Unwrap(err))
		}
		bin = p
	} else {
		var tried []string
		if bin, tried = findClaude(s.candidates); bin == "" {
			fmt.Fprintf(s.out, "\nClaude Code was not found (looked in %s).\n"+
				"Install it (npm install -g @anthropic-ai/claude-code), log in once by running claude, then run untether init again;\n"+
				"or give the full path of claude (`command -v claude` in the shell you use it from).\n", strings.Join(tried, ", "))
			if bin = s.ask("Path of claude (empty: decide later)", ""); bin == "" {
				return defaultConfig().Claude.Binary, nil
			}
			// LookPath of a path checks that it is an executable file.
			p, err := exec.LookPath(expandHomeOr(bin))
			if err != nil {
				return "", fmt.Errorf("claude: %w", err)
			}
			bin = p
		}
	}
	if abs, err := filepath.Abs(bin); err == nil {
		bin = abs
	}
	if v, _, err := claudeVersion(ctx, bin, os.Environ(), claudeVersionWait); err == nil {
		fmt.Fprintf(s.out, "✓ Claude Code %s: %s\n", shortClaudeVersion(v), bin)
	} else {
		fmt.Fprintf(s.out, "✗ Claude Code at %s: %v\n", bin, err)
	}
	return bin, nil
}

// workDir is --dir, else the directory the user names (default: the
// current one). It must exist: Claude works in it.
func (s *setup) workDir() (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("the current directory: %w", err)
	}
	if s.flags.dir != "" {
		return checkDir(s.flags.dir)
	}
	fmt.Fprintf(s.out, "\nThe project Claude works in (a chat can switch with /cwd once [claude] project_roots allows it).\n")
	for {
		dir, err := checkDir(s.ask("Directory", cwd))
		if err == nil || s.atEOF() {
			return dir, err
		}
		fmt.Fprintf(s.out, "%v\n", err)
	}
}

func checkDir(dir string) (string, error) {
	dir, err := filepath.Abs(expandHomeOr(dir))
	if err != nil {
		return "", fmt.Errorf("directory %q: %w", dir, err)
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", fmt.Errorf("%s is not a directory (create it first: mkdir -p %s)", dir, dir)
	}
	return dir, nil
}

func expandHomeOr(p string) string {
	if e, err := expandHome(p); err == nil {
		return e
	}
	return p
}

// tellOwner answers the owner's message in Telegram, where they look.
func (s *setup) tellOwner(ctx context.Context, bot botAPI, userID int64) {
	ctx, cancel := context.WithTimeout(ctx, s.doctor.httpTimeout)
	defer cancel()
	err := bot.call(ctx, "sendMessage", urlValues("chat_id", userID, "text", view.SetupDone(userID), "parse_mode", "HTML"), nil)
	if err != nil {
		fmt.Fprintf(s.out, "(could not answer in Telegram: %v)\n", err)
	}
}

// goRun runs untether from a checkout, as the README says.
const goRun = "go run ./cmd/untether"

// startCommand is how to start untether (prog) with the config at path
// (config: "" for the default place, else " --config PATH").
func startCommand(path string) (prog, config string) {
	prog = "untether"
	if _, err := exec.LookPath("untether"); err != nil {
		if exe, err := os.Executable(); err == nil && !strings.Contains(exe, "go-build") {
			prog = shellQuote(exe)
		} else {
			prog = goRun
		}
	}
	if def, err := defaultConfigPath(func(string) string { return "" }); err != nil || def != path {
		config = " --config " + shellQuote(path)
	}
	return prog, config
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ask prints question (with the default in brackets) and returns the
// answer, or def for an empty line or when stdin has no more lines: that
// is what lets init run without a terminal.
func (s *setup) ask(question, def string) string {
	if def != "" {
		fmt.Fprintf(s.out, "%s [%s]: ", question, def)
	} else {
		fmt.Fprintf(s.out, "%s: ", question)
	}
	line, _ := s.in.ReadString('\n') // an error is the end of the answers
	line = strings.TrimSpace(line)
	if s.tty < 0 {
		fmt.Fprintln(s.out, line) // what a terminal would have echoed: the transcript reads as a dialogue
	}
	if line == "" {
		return def // also at the end of stdin
	}
	return line
}

// confirm asks a yes/no question whose answer is no unless typed.
func (s *setup) confirm(question string) bool {
	ans := s.ask(question+" [y/N]", "")
	return strings.EqualFold(ans, "y") || strings.EqualFold(ans, "yes")
}

func (s *setup) atEOF() bool {
	_, err := s.in.Peek(1)
	return err != nil
}

// askSecret reads the token: without echo from a terminal, else a line of
// stdin. It is never printed.
func (s *setup) askSecret(question string) (string, error) {
	fmt.Fprintf(s.out, "%s: ", question)
	defer fmt.Fprintln(s.out)
	if s.tty >= 0 {
		b, err := term.ReadPassword(s.tty)
		if err != nil {
			return "", fmt.Errorf("reading the token: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	line, err := s.in.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading the token: %w", err)
	}
	return strings.TrimSpace(line), nil
}
