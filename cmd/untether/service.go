package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// serviceFlags are untether service install's flags.
type serviceFlags struct {
	config string
	print  bool // print the unit, write nothing
	force  bool // replace a different unit
}

// cmdService handles `untether service install`: a systemd user unit that
// runs the bot with this config, and the commands to start it.
func cmdService(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "install" {
		return fmt.Errorf("%w: untether service install [--config PATH] [--print] [--force]", errUsage)
	}
	var f serviceFlags
	fs := flag.NewFlagSet("untether service install", flag.ContinueOnError)
	fs.SetOutput(stdout)
	fs.StringVar(&f.config, "config", "", "the config the service runs with")
	fs.BoolVar(&f.print, "print", false, "only print the unit")
	fs.BoolVar(&f.force, "force", false, "replace an existing, different unit")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return fmt.Errorf("finding the untether executable: %w", err)
	}
	if strings.Contains(exe, "go-build") {
		return errors.New("this untether is a temporary build (go run): install it first " +
			"(from the clone: go install ./cmd/untether, or go build -o ~/.local/bin/untether ./cmd/untether), " +
			"then run untether service install with it")
	}
	return installService(ctx, f, exe, os.Getenv, stdout)
}

// installService writes (or prints) the unit running exe with the config.
func installService(ctx context.Context, f serviceFlags, exe string, getenv func(string) string, stdout io.Writer) error {
	path, err := ResolveConfigPath(f.config)
	if err == nil {
		path, err = filepath.Abs(path)
	}
	if err != nil {
		return err
	}
	// Before reading it: a path the unit cannot hold is the first thing to fix.
	if err := unitSafe("the config path", path); err != nil {
		return err
	}
	cfg, err := loadConfig(path, getenv)
	if err != nil {
		return fmt.Errorf("the service would not start: %w", err)
	}
	// Checked before anything is printed or written: a refused value makes
	// no unit at all.
	dirs, err := servicePath(ctx, cfg)
	if err != nil {
		return err
	}
	unit, err := serviceUnit(exe, path, dirs)
	if err != nil {
		return err
	}
	if f.print {
		_, err := io.WriteString(stdout, unit)
		return err
	}
	if fileCfg, _ := decodeConfig(path, func(string) string { return "" }); fileCfg == nil || fileCfg.Telegram.BotToken == "" {
		fmt.Fprintf(stdout, "note: the bot token comes from $%s, which the service does not have: put it in [telegram] bot_token of %s\n",
			envBotToken, path)
	}
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("finding the systemd user directory: %w", err)
		}
		dir = filepath.Join(home, ".config")
	}
	unitPath := filepath.Join(dir, "systemd", "user", "untether.service")
	old, err := os.ReadFile(unitPath)
	switch {
	case err == nil && string(old) == unit:
		fmt.Fprintf(stdout, "%s is up to date.\n", unitPath)
	case err == nil && !f.force:
		return fmt.Errorf("%s exists and differs: pass --force to replace it (--print shows the new one)", unitPath)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("reading %s: %w", unitPath, err)
	default:
		if err := os.MkdirAll(filepath.Dir(unitPath), 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", filepath.Dir(unitPath), err)
		}
		if err := os.WriteFile(unitPath, []byte(unit), 0o644); err != nil {
			return fmt.Errorf("writing the unit: %w", err)
		}
		fmt.Fprintf(stdout, "Wrote %s.\n", unitPath)
	}
	fmt.Fprint(stdout, `
Start it now and at every login:
  systemctl --user daemon-reload
  systemctl --user enable --now untether
Read its log:
  journalctl --user -u untether -f
Keep it running while you are logged out:
  loginctl enable-linger "$USER"
`)
	return nil
}

// servicePath is the PATH the service runs with: a service does not get
// the login shell's, so the directories of claude and of the node it runs
// on come first, then the usual ones. Each directory that comes from this
// machine is checked for what a unit file cannot hold.
func servicePath(ctx context.Context, cfg *Config) (string, error) {
	var dirs []string
	add := func(what, dir string) error {
		if err := unitSafe(what, dir); err != nil {
			return err
		}
		dirs = append(dirs, dir)
		return nil
	}
	claude := cfg.Claude.Binary
	if !filepath.IsAbs(claude) {
		claude, _ = findClaude(defaultClaudeCandidates(ctx))
	}
	if claude != "" {
		if err := add("the claude directory", filepath.Dir(claude)); err != nil {
			return "", err
		}
		// An npm install's claude is a link into node_modules, next to
		// nothing; nvm-style installs keep node beside that link.
		if node, err := exec.LookPath("node"); err == nil {
			if err := add("the node directory", filepath.Dir(node)); err != nil {
				return "", err
			}
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		if err := unitSafe("the home directory", home); err != nil {
			return "", err
		}
		dirs = append(dirs, filepath.Join(home, ".local", "bin"))
	}
	dirs = append(dirs, "/usr/local/bin", "/usr/bin", "/bin")
	var out []string
	for _, d := range dirs {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return strings.Join(out, ":"), nil
}

// serviceUnit is the systemd user unit running exe with the config, or why
// one of them cannot be written into a unit.
func serviceUnit(exe, config, path string) (string, error) {
	if err := unitSafe("the untether executable", exe); err != nil {
		return "", err
	}
	// systemd refuses an executable path with a quote or a backslash
	// ("Executable name contains special characters", fatal), and reads $ in
	// it literally for the file but expands it in the name the process is
	// given (argv[0]), so no spelling is right for both.
	if strings.ContainsAny(exe, `"'\$`) {
		return "", fmt.Errorf("the untether executable %q: systemd does not run a path with a quote, a backslash or a $; "+
			"put untether elsewhere (go build -o ~/.local/bin/untether ./cmd/untether) and run service install with that one", exe)
	}
	if err := unitSafe("the config path", config); err != nil {
		return "", err
	}
	if err := unitSafe("the service PATH", path); err != nil {
		return "", err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `# Written by untether service install. Logs: journalctl --user -u untether -f
[Unit]
Description=untether: Claude Code from Telegram
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
ExecStart=%s run --config %s
# SIGTERM: the bot stops polling, tells chats with a running turn, closes
# its Claude sessions and exits 0 within a few seconds.
KillSignal=SIGTERM
# SIGTERM to untether only, and nothing to the rest of the unit: it closes
# its Claude processes itself, or leaves them to their holders (durable
# sessions: a restart carries their turns on; see docs/durability.md). The
# default, control-group, and mixed would kill those with the bot.
KillMode=process
TimeoutStopSec=30
Restart=on-failure
RestartSec=5
# A service does not get your shell's PATH: Claude needs claude, node, git...
Environment=%s

[Install]
WantedBy=default.target
`, systemdWord(exe, execPath), systemdWord(config, execArg), systemdWord("PATH="+path, envAssignment))
	return b.String(), nil
}

// unitSafe refuses a value a unit file cannot carry as one value: systemd
// ends a line at \n, \r and NUL (the rest would be a directive of its own,
// ExecStartPre=... say), a unit is UTF-8, and other control characters,
// C1 ones and the Unicode line and paragraph separators make the unit read
// differently to a person than to systemd.
func unitSafe(what, v string) error {
	if !utf8.ValidString(v) {
		return fmt.Errorf("%s %q is not valid UTF-8, which a systemd unit cannot hold: rename it", what, v)
	}
	for _, r := range v {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return fmt.Errorf("%s %q holds the control character %U, which would break the systemd unit's lines: rename it", what, v, r)
		}
	}
	return nil
}

// Where a word goes in the unit: systemd reads each differently.
const (
	execPath      = iota // ExecStart's executable: % specifiers, no $ expansion
	execArg              // ExecStart's arguments: % specifiers, and $ expanded when it runs
	envAssignment        // an Environment= assignment: % specifiers, no $ expansion
)

// systemdWord writes s as one word of a unit line, following systemd.syntax(7)
// and systemd.service(5) "Command lines": a word is split on whitespace
// unless quoted, and backslash escapes are read inside quotes too, so a word
// with whitespace, a quote or a backslash goes in double quotes with \ and
// \" escaped; % starts a specifier everywhere, so it is doubled; $ names a
// variable in a command's arguments only, where it is doubled too.
func systemdWord(s string, where int) string {
	s = strings.ReplaceAll(s, "%", "%%")
	if where == execArg {
		s = strings.ReplaceAll(s, "$", "$$")
	}
	// ; as a word of its own would start a second command; # and ; start a
	// comment only at the start of a line, never here.
	if !strings.ContainsAny(s, " \t\"'\\") && s != ";" {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
