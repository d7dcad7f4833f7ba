// Command untether runs Claude Code on this machine from Telegram.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	sshhost "github.com/untether/untether/host/ssh"

	"github.com/untether/untether/procguard"
)

// errUsage marks command-line mistakes: they exit 2, not 1.
var errUsage = errors.New("usage")

func main() {
	// The agent a bot on another machine runs here over ssh (host/ssh):
	// a hidden command, before the bot's own signal handling.
	if len(os.Args) > 1 && os.Args[1] == "host-agent" {
		os.Exit(sshhost.AgentMain(os.Args[2:]))
	}
	// The holder of a durable Claude process (package hold): hidden too.
	if len(os.Args) > 1 && os.Args[1] == "hold" {
		if err := procguard.Protect(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
			fmt.Fprintf(os.Stderr, "untether hold: warning: %v\n", err)
		}
		os.Exit(holdMain())
	}
	// Before any secret is read: commands Claude runs are processes of the
	// same user, and could otherwise read the token from this process's
	// /proc/<pid>/environ or memory (package procguard). Every subcommand
	// holds a secret at some point (run, mcp, doctor, init).
	if err := procguard.Protect(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		fmt.Fprintf(os.Stderr, "untether: warning: other processes of this user may read this one's environment: %v\n", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cmd := "run"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "run":
		err = cmdRun(ctx, args, stderr)
	case "doctor":
		err = cmdDoctor(ctx, args, stdout)
	case "init":
		err = cmdInit(ctx, args, os.Stdin, stdout)
	case "service":
		err = cmdService(ctx, args, stdout)
	case "mcp":
		err = cmdMCP(ctx, args, os.Stdin, os.Stdout, stderr)
	case "version":
		err = cmdVersion(ctx, args, stdout)
	case "help":
		usage(stdout)
	default:
		fmt.Fprintf(stderr, "untether: unknown command %q\n", cmd)
		usage(stderr)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "untether: %v\n", err)
		return 2
	default:
		fmt.Fprintf(stderr, "untether: %v\n", err)
		return 1
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage:
  untether [run] [--config PATH] [--log-format text|json] [--log-level LEVEL]
  untether init [--config PATH] [--api-url URL] [--dir DIR] [--claude PATH] [--user-id ID] [--wait 5m] [--force]
  untether doctor [--config PATH]
  untether service install [--config PATH] [--print] [--force]
  untether version [--config PATH]
  untether mcp --socket PATH   (started by Claude Code: the send_file tool)

The config file defaults to $UNTETHER_CONFIG, else ~/.untether/untether.toml.
untether init writes one (the token comes from a prompt or $UNTETHER_BOT_TOKEN);
see docs/setup.md.
`)
}

// commonFlags are the flags run and doctor share.
type commonFlags struct {
	config    string
	logFormat string
	logLevel  string
}

func parseFlags(name string, args []string, out io.Writer) (commonFlags, error) {
	var f commonFlags
	fs := flag.NewFlagSet("untether "+name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&f.config, "config", "", "path of the config file")
	fs.StringVar(&f.logFormat, "log-format", "", "log format: text or json (overrides [log] format)")
	fs.StringVar(&f.logLevel, "log-level", "", "log level: debug, info, warn, error (overrides [log] level)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return f, err
		}
		return f, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return f, nil
}
