// Command untether-load runs the real bot (telegram.New + Run) against the
// fake Bot API with Telegram-like flood limits enforced, many chats at once,
// each driven by a scripted Claude, and prints latency, throughput and
// resource figures. See docs/performance.md.
//
//	go run ./cmd/untether-load                  # 50 chats, 3 turns each (~1.5 min)
//	go run ./cmd/untether-load -idle-chats 1000 # memory with 1,000 idle chats
//	go run ./cmd/untether-load -junk-presses 300 # the owner's answer behind strangers' presses
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"
)

type config struct {
	chats         int
	groups        int
	turns         int
	eventsPerSec  float64
	turnTime      time.Duration
	answerKB      int
	streamRate    int
	followups     bool
	approvalEvery int
	pressDelay    time.Duration
	think         time.Duration
	stagger       time.Duration
	lostAfter     time.Duration
	limits        bool
	global        int
	rtt           time.Duration
	idleChats     int
	junkPresses   int
	junkUsers     int
	idleTimeout   time.Duration
	memProfile    string
	timeout       time.Duration
	seed          uint64
	verbose       bool
	claude        string
	modelTime     time.Duration
	maxLive       int
	maxStarts     int
	claudeEnv     string
	quick         int
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("untether-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.chats, "chats", 50, "concurrent chats")
	fs.IntVar(&c.groups, "groups", 10, "how many of the chats are groups (the rest are private)")
	fs.IntVar(&c.turns, "turns", 3, "turns (user messages) per chat")
	fs.Float64Var(&c.eventsPerSec, "events", 20, "Claude events per second per chat (tool calls and results)")
	fs.DurationVar(&c.turnTime, "turn-time", 20*time.Second, "how long Claude works on a turn, on average (±50%)")
	fs.IntVar(&c.answerKB, "answer-kb", 6, "final answer size in KB of Markdown (±30% by chat)")
	fs.IntVar(&c.streamRate, "stream-rate", 1000, "how fast Claude writes text, in bytes a second, streamed as deltas every 50ms (0: whole blocks only)")
	fs.BoolVar(&c.followups, "followups", true, "after its last turn each chat asks a quick follow-up at once (short answer)")
	fs.IntVar(&c.approvalEvery, "approval-every", 2, "one turn in N asks for an approval (0: none)")
	fs.DurationVar(&c.pressDelay, "press-delay", 600*time.Millisecond, "how long the user takes to tap Approve (±50%)")
	fs.DurationVar(&c.think, "think", 1500*time.Millisecond, "pause between a final and the next message (±50%)")
	fs.DurationVar(&c.stagger, "stagger", 2*time.Second, "chats start within this spread")
	fs.DurationVar(&c.lostAfter, "lost-after", 60*time.Second, "a final not complete this long after the turn's work counts as lost")
	fs.BoolVar(&c.limits, "limits", true, "enforce Telegram-like limits in the fake and pace the outbox")
	fs.DurationVar(&c.rtt, "rtt", 0, "simulated round trip to the Bot API (e.g. 100ms; long polls excepted)")
	fs.IntVar(&c.global, "global", 0, "override the outbox's global calls per second (0: the bot's default)")
	fs.IntVar(&c.idleChats, "idle-chats", 0, "memory mode: this many chats use the bot once, then idle")
	fs.DurationVar(&c.idleTimeout, "idle-timeout", time.Second, "idle mode: the bot's idle_timeout (closes each chat's Claude session)")
	fs.IntVar(&c.junkPresses, "junk-presses", 0, "junk mode: this many button presses from users who are not allowed arrive just before the owner's message")
	fs.IntVar(&c.junkUsers, "junk-users", 30, "junk mode: how many different users send the presses")
	fs.StringVar(&c.memProfile, "memprofile", "", "idle mode: write a heap profile of the idle bot to this file")
	fs.DurationVar(&c.timeout, "timeout", 3*time.Minute, "give up after this long")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed (stagger, think and press delays, answer sizes)")
	fs.BoolVar(&c.verbose, "v", false, "log the bot at info level")
	fs.StringVar(&c.claude, "claude", "", "burst mode: run this Claude Code CLI against a fake Anthropic API (uses -chats, -turns, -think, -answer-kb, -model-time; private chats only)")
	fs.DurationVar(&c.modelTime, "model-time", 800*time.Millisecond, "burst mode: how long the fake model takes to answer")
	fs.IntVar(&c.quick, "quick", 0, "with -claude: N rounds in one private chat of a follow-up right after an answer and a message 0.5 s after a /cancel, each timed from Claude's answer to it as a message")
	fs.IntVar(&c.maxStarts, "max-starts", 0, "burst mode: Claude starts in flight at once (0: the bot's default, the cores)")
	fs.StringVar(&c.claudeEnv, "claude-env", "", "burst mode: more environment for the CLI, KEY=VALUE[,KEY=VALUE...] (to measure a setting)")
	fs.IntVar(&c.maxLive, "max-live", 0, "burst mode: max_live_sessions (0: the bot's default from this machine's memory)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case c.chats < 1 || c.groups < 0 || c.groups > c.chats || c.turns < 1:
		return c, errors.New("need -chats >= 1, 0 <= -groups <= -chats, -turns >= 1")
	case c.eventsPerSec <= 0 || c.turnTime < 0 || c.answerKB < 0 || c.streamRate < 0 || c.idleChats < 0 || c.junkPresses < 0:
		return c, errors.New("-events must be > 0; -turn-time, -answer-kb, -stream-rate, -idle-chats, -junk-presses >= 0")
	}
	return c, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "untether-load:", err)
		return 2
	}
	level := slog.LevelWarn
	if cfg.verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()

	if cfg.idleChats > 0 {
		rep, err := runIdle(ctx, cfg, log)
		return finish(stdout, stderr, rep, err)
	}
	if cfg.claude != "" && cfg.quick > 0 {
		rep, err := runQuick(ctx, cfg, log)
		return finish(stdout, stderr, rep, err)
	}
	if cfg.claude != "" {
		rep, err := runBurst(ctx, cfg, log)
		return finish(stdout, stderr, rep, err)
	}
	if cfg.junkPresses > 0 {
		rep, err := runJunk(ctx, cfg, log)
		return finish(stdout, stderr, rep, err)
	}
	rep, err := runLoad(ctx, cfg, log)
	if rep != nil {
		rep.table(stdout)
		fmt.Fprintln(stdout, rep.line())
	}
	if err != nil {
		fmt.Fprintln(stderr, "untether-load:", err)
		return 1
	}
	return 0
}

// finish prints a scenario's report (if it got that far) and its error,
// and returns the exit code.
func finish[R interface {
	comparable
	print(io.Writer)
}](stdout, stderr io.Writer, rep R, err error) int {
	var none R
	if rep != none {
		rep.print(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "untether-load:", err)
		return 1
	}
	return 0
}
