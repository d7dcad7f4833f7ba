package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/host"
	"github.com/untether/untether/runner"
	"github.com/untether/untether/runner/claudetest"
)

// runBurst is a team's morning (-claude): cfg.chats private chats write at
// once, cfg.turns turns each, through the real bot and the real Claude
// Code CLI against the fake Anthropic API, whose model answers every
// prompt after -model-time with -answer-kb of text. The next message of a
// chat goes -think after its answer arrived as a message. It reports what
// the users saw (first reaction, the answer visible, the answer as a
// message) by turn number, CLI starts and CPU.
func runBurst(ctx context.Context, cfg config, log *slog.Logger) (*burstReport, error) {
	d := &driver{cfg: cfg, log: log, rec: newRecorder(), chats: plans(cfg.chats, 0)}
	rig, err := startClaudeRig(ctx, d)
	if err != nil {
		return nil, err
	}
	defer rig.close()
	base, baseKids := usageNow(), childCPU()
	load := loadAverage()
	began := time.Now()
	var wg sync.WaitGroup
	for _, c := range d.chats {
		wg.Go(func() { d.burstConverse(ctx, c) })
	}
	wg.Wait()
	elapsed := time.Since(began)
	stopErr := rig.bot.stop() // the CLIs exit with the bot: their CPU is counted once they are reaped
	rep := d.burstReport(elapsed, usageNow().since(base), childCPU()-baseKids, int(rig.starts.n.Load()), rig.maxLive)
	rep.maxStarts, rep.load = cmp.Or(cfg.maxStarts, chat.DefaultMaxStarts()), load
	if stopErr != nil && !errors.Is(stopErr, context.Canceled) {
		return rep, fmt.Errorf("bot: %w", stopErr)
	}
	return rep, ctx.Err()
}

// claudeRig is the real bot with the real Claude Code CLI (cfg.claude)
// against the fake Anthropic API, whose model is d.modelReply, and the fake
// Bot API, polling: what the burst and the quick exchanges run on.
type claudeRig struct {
	bot     *bot
	starts  *startCounter
	maxLive int
	closers []func()
}

func (r *claudeRig) close() {
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i]()
	}
}

func startClaudeRig(ctx context.Context, d *driver) (_ *claudeRig, err error) {
	cfg, log := d.cfg, d.log
	rig := &claudeRig{}
	defer func() {
		if err != nil {
			rig.close()
		}
	}()
	d.rec.burst = true
	for _, c := range d.chats {
		d.rec.addChat(c.idx, c.chat.ID, c.group)
	}
	fake, err := newFake(d.rec, cfg.limits, cfg.rtt, log)
	if err != nil {
		return nil, err
	}
	rig.closers = append(rig.closers, fake.Close)
	d.fake = fake
	steps := make([]claudetest.Step, cfg.turns+4*cfg.quick+8) // the step is picked by the assistant messages so far
	for i := range steps {
		steps[i] = claudetest.StepFunc(d.modelReply)
	}
	api := claudetest.NewStandalone(func(string, ...any) {}, func(f string, a ...any) { log.Error("fake anthropic api", "err", fmt.Sprintf(f, a...)) }, steps...)
	rig.closers = append(rig.closers, api.Close)
	home, err := os.MkdirTemp("", "untether-burst-home-*")
	if err != nil {
		return nil, fmt.Errorf("claude home: %w", err)
	}
	rig.closers = append(rig.closers, func() { os.RemoveAll(home) })
	env, err := claudetest.EnvIn(home, api.URL())
	if err != nil {
		return nil, err
	}
	rig.starts = &startCounter{Handler: log.Handler()}
	if cfg.claudeEnv != "" {
		env = append(env, strings.Split(cfg.claudeEnv, ",")...)
	}
	eng := &runner.Engine{Base: runner.Options{
		Binary: cfg.claude, Mode: runner.Interactive, Env: env,
		UseAPIBilling: true, // the fake key in env is the CLI's only credential
		Logger:        slog.New(rig.starts),
	}}
	bc := botConfig(fake, d.chats, cfg.limits, cfg.global)
	bc.MaxLive = cfg.maxLive
	bc.MaxStarts = cfg.maxStarts
	if bc.MaxLive <= 0 {
		bc.MaxLive = maxLiveFromMemory(ctx)
	}
	rig.maxLive = bc.MaxLive
	b, err := startBot(ctx, bc, eng, log)
	if err != nil {
		return nil, err
	}
	rig.bot = b
	rig.closers = append(rig.closers, func() { _ = b.stop() })
	if err := awaitPolling(ctx, fake); err != nil {
		return nil, fmt.Errorf("bot did not start polling: %w", err)
	}
	return rig, nil
}

// burstConverse is one user of the burst: a message, its answer as a
// message, -think, the next.
func (d *driver) burstConverse(ctx context.Context, c chatPlan) {
	for n := 1; n <= d.cfg.turns; n++ {
		id := turnID{chat: c.idx, turn: n}
		t := d.rec.begin(id, false)
		d.fake.SendMessage(c.user, c.chat, promptText(id))
		wait := time.NewTimer(d.cfg.lostAfter)
		select {
		case <-t.done:
		case <-wait.C:
			d.log.Error("answer not delivered in time", "chat", c.idx, "turn", n)
		case <-ctx.Done():
			wait.Stop()
			return
		}
		wait.Stop()
		if !sleepCtx(ctx, d.cfg.think) {
			return
		}
	}
}

// modelReply is the fake model: it finds the turn in the prompt, stamps
// the moment the request came, and answers after -model-time.
func (d *driver) modelReply(req *claudetest.Request) claudetest.Reply {
	texts := req.UserTexts()
	if len(texts) == 0 {
		return claudetest.Say("ok")
	}
	id, ok := parsePrompt(texts[len(texts)-1])
	if !ok {
		return claudetest.Say("ok") // not a turn's request (a title, say)
	}
	d.rec.stamp(id, func(t *turnRec) {
		if t.claudeFrom.IsZero() {
			t.claudeFrom = time.Now()
		}
	})
	if hold := d.holdFor(id); hold != nil {
		<-hold // a turn the quick exchanges cancel: it answers only once let go
	}
	time.Sleep(d.cfg.modelTime)
	d.rec.stamp(id, func(t *turnRec) { t.modelDone = time.Now() })
	return claudetest.Say(burstAnswer(id, d.cfg.answerKB))
}

// burstAnswer is about kb KB of plain text that names its turn at the
// start and ends with the end marker.
func burstAnswer(id turnID, kb int) string {
	var sb strings.Builder
	sb.WriteString("Answer " + turnMark(id) + ": ")
	for sb.Len() < kb*1024-40 {
		sb.WriteString("the decoder now reads whole lines and the tests pass. ")
	}
	sb.WriteString("End of answer " + id.String() + ".")
	return sb.String()
}

// burstSaw follows a burst turn on the accepted calls of its chat: the
// first call at all (a chat action, a draft, a message), the first that
// shows the answer's text, and the answer as a message (not the progress
// message, which carries a Cancel button), which ends the turn.
func (r *recorder) burstSaw(t *turnRec, method, text string, progress bool, now time.Time) {
	if t == nil || t.finalAt.After(t.sent) {
		return
	}
	if t.reactAt.IsZero() && method != "editMessageText" {
		t.reactAt = now
	}
	if !strings.Contains(text, turnMark(t.id)) && !strings.Contains(text, "End of answer "+t.id.String()+".") {
		return
	}
	if t.textSeen.IsZero() {
		t.textSeen = now
	}
	if method == "sendMessage" && !progress && strings.Contains(text, "End of answer "+t.id.String()+".") {
		t.finalAt = now
		r.last = now
		close(t.done)
	}
}

// startCounter counts the CLI processes the runner starts (its "claude
// started" record) and passes warnings on.
type startCounter struct {
	slog.Handler
	n atomic.Int64
}

func (s *startCounter) Enabled(ctx context.Context, l slog.Level) bool { return true }

func (s *startCounter) Handle(ctx context.Context, rec slog.Record) error {
	if rec.Message == "claude started" {
		s.n.Add(1)
	}
	if rec.Level < slog.LevelWarn || !s.Handler.Enabled(ctx, rec.Level) {
		return nil
	}
	return s.Handler.Handle(ctx, rec)
}

func (s *startCounter) WithAttrs(as []slog.Attr) slog.Handler { return s } // the count needs the one handler
func (s *startCounter) WithGroup(string) slog.Handler         { return s }

// childCPU is the CPU of the reaped child processes (the CLIs).
func childCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// maxLiveFromMemory is the bot's default cap (cmd/untether: one live
// CLI per GiB, 2 to 32), so the burst runs with the default config.
func maxLiveFromMemory(ctx context.Context) int {
	total, err := host.Local{}.MemTotal(ctx)
	if err != nil {
		return 4
	}
	return min(32, max(2, int(total>>30)))
}

// burstReport is what a burst's users saw.
type burstReport struct {
	cfg                 config
	chats, turns, lost  int
	tooMany             int
	starts, maxLive     int
	react, visible, msg dist
	byTurn              map[int]*turnDists
	elapsed             time.Duration
	botCPU, cliCPU      time.Duration
	maxStarts           int
	load                string // the load average as the burst began: other work on the machine
}

// loadAverage is /proc/loadavg's three averages ("?" where there is none):
// a burst's figures depend on what else the machine runs.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

// turnDists are one turn number's figures: the answer visible and as a
// message, and the model's request, each from the user's message.
type turnDists struct{ visible, msg, request dist }

func (d *driver) burstReport(elapsed time.Duration, use usage, cli time.Duration, starts, maxLive int) *burstReport {
	rep := &burstReport{cfg: d.cfg, chats: len(d.chats), tooMany: d.fake.RateLimited(), starts: starts, maxLive: maxLive,
		byTurn: map[int]*turnDists{}, elapsed: elapsed, botCPU: use.cpu, cliCPU: cli}
	r := d.rec
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.turns {
		rep.turns++
		if t.finalAt.IsZero() {
			rep.lost++
			continue
		}
		td := rep.byTurn[t.id.turn]
		if td == nil {
			td = &turnDists{}
			rep.byTurn[t.id.turn] = td
		}
		if !t.reactAt.IsZero() {
			rep.react = append(rep.react, t.reactAt.Sub(t.sent))
		}
		rep.visible = append(rep.visible, t.textSeen.Sub(t.sent))
		rep.msg = append(rep.msg, t.finalAt.Sub(t.sent))
		td.visible = append(td.visible, t.textSeen.Sub(t.sent))
		td.msg = append(td.msg, t.finalAt.Sub(t.sent))
		if !t.claudeFrom.IsZero() {
			td.request = append(td.request, t.claudeFrom.Sub(t.sent))
		}
	}
	return rep
}

func p3(d dist) string {
	return fmt.Sprintf("%d / %d / %d", ms(d.pct(50)), ms(d.pct(90)), ms(d.pct(99)))
}

func (r *burstReport) print(w io.Writer) {
	c := r.cfg
	fmt.Fprintf(w, "untether burst: %d private chats × %d turns, the real CLI (%s), model answers %d KB after %s, next message %s after the answer, limits enforced: %v, max_live_sessions=%d, %d cores\n",
		r.chats, c.turns, filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(c.claude)))), c.answerKB, c.modelTime, c.think, c.limits, r.maxLive, runtime.NumCPU())
	fmt.Fprintf(w, "  max starts %d, load average at the start %s, CLI environment added: %q\n", r.maxStarts, r.load, c.claudeEnv)
	fmt.Fprintf(w, "  lost %d of %d, 429s %d, CLI starts %d, wall %.1f s, CPU %.1f s (bot, fakes and driver %.1f s; CLIs %.1f s)\n",
		r.lost, r.turns, r.tooMany, r.starts, r.elapsed.Seconds(), (r.botCPU + r.cliCPU).Seconds(), r.botCPU.Seconds(), r.cliCPU.Seconds())
	fmt.Fprintf(w, "  %-34s p50 / p90 / p99 ms\n", "from the user's message to")
	fmt.Fprintf(w, "  %-34s %s\n", "first reaction (any call)", p3(r.react))
	fmt.Fprintf(w, "  %-34s %s\n", "answer visible (draft or message)", p3(r.visible))
	fmt.Fprintf(w, "  %-34s %s\n", "answer as a message", p3(r.msg))
	for n := 1; n <= c.turns; n++ {
		td := r.byTurn[n]
		if td == nil {
			continue
		}
		fmt.Fprintf(w, "  turn %d: visible %s, message %s, model's request %s\n", n, p3(td.visible), p3(td.msg), p3(td.request))
	}
	fmt.Fprintln(w, r.line())
}

// line is the one-line summary, in a fixed form for scripts.
func (r *burstReport) line() string {
	first, rest := dist{}, dist{}
	for n, td := range r.byTurn {
		if n == 1 {
			first = append(first, td.visible...)
		} else {
			rest = append(rest, td.visible...)
		}
	}
	return fmt.Sprintf("burst: chats=%d turns=%d lost=%d 429s=%d react_p50_ms=%d react_p99_ms=%d visible_p50_ms=%d visible_p90_ms=%d visible_p99_ms=%d "+
		"first_visible_p50_ms=%d first_visible_p99_ms=%d later_visible_p50_ms=%d message_p50_ms=%d message_p99_ms=%d starts=%d cpu_s=%.1f cli_cpu_s=%.1f",
		r.chats, r.turns, r.lost, r.tooMany, ms(r.react.pct(50)), ms(r.react.pct(99)), ms(r.visible.pct(50)), ms(r.visible.pct(90)), ms(r.visible.pct(99)),
		ms(first.pct(50)), ms(first.pct(99)), ms(rest.pct(50)), ms(r.msg.pct(50)), ms(r.msg.pct(99)), r.starts,
		(r.botCPU + r.cliCPU).Seconds(), r.cliCPU.Seconds())
}
