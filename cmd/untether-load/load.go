package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/tgtest"
)

// chatPlan is one simulated conversation: a private chat, or a supergroup
// where the user addresses the bot by @mention.
type chatPlan struct {
	idx   int
	user  tgtest.User
	chat  tgtest.Chat
	group bool
}

type driver struct {
	cfg   config
	log   *slog.Logger
	rec   *recorder
	fake  *tgtest.Server
	chats []chatPlan
	eng   *scripted

	holdMu sync.Mutex
	holds  map[turnID]chan struct{} // quick: turns whose model answer waits to be let go
}

// holdFor is the channel id's model answer waits on, nil for most turns.
func (d *driver) holdFor(id turnID) chan struct{} {
	d.holdMu.Lock()
	defer d.holdMu.Unlock()
	return d.holds[id]
}

// plans makes n chats; the first groups of them are groups.
func plans(n, groups int) []chatPlan {
	out := make([]chatPlan, n)
	for i := range out {
		u := tgtest.User{ID: int64(500_000 + i), FirstName: "User" + strconv.Itoa(i), Username: "user" + strconv.Itoa(i)}
		p := chatPlan{idx: i, user: u, chat: tgtest.PrivateChat(u)}
		if i < groups {
			p.group = true
			p.chat = tgtest.Supergroup(-1_001_000_000_000-int64(i), "Team "+strconv.Itoa(i))
		}
		out[i] = p
	}
	return out
}

// bot is a running telegram.Bot against the fake.
type bot struct {
	store *prefs.Store
	stop  func() error
	dir   string
}

func startBot(ctx context.Context, cfg telegram.Config, eng engine.Engine, log *slog.Logger) (*bot, error) {
	dir, err := os.MkdirTemp("", "untether-load-*")
	if err != nil {
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	store, err := prefs.Open(ctx, filepath.Join(dir, "state.db"), prefs.WithLogger(log))
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("open state: %w", err)
	}
	cfg.WorkDir = dir
	b, err := telegram.New(cfg, eng, store, log)
	if err != nil {
		store.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("new bot: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() { done <- b.Run(runCtx) }()
	return &bot{store: store, dir: dir, stop: sync.OnceValue(func() error { // a rig's cleanup stops it again
		cancel()
		err := <-done
		if cerr := store.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close state: %w", cerr)
		}
		os.RemoveAll(dir)
		return err
	})}, nil
}

// botConfig is the bot as a user would run it: default pacing and edit
// cadence; only the pool is sized for the load (scripted sessions are
// cheap; real CLI processes are why the default is 4).
func botConfig(fake *tgtest.Server, chats []chatPlan, limits bool, global int) telegram.Config {
	users := make([]int64, len(chats))
	for i, c := range chats {
		users[i] = c.user.ID
	}
	cfg := telegram.Config{
		Token: fake.Token(), APIURL: fake.URL(), AllowedUsers: users,
		PollTimeout: 10 * time.Second, ShutdownWait: 5 * time.Second,
	}
	cfg.MaxLive = len(chats)
	cfg.Outbox.GlobalPerSecond = global
	if !limits {
		cfg.Outbox = outbox.Options{ChatInterval: -1, GroupPerMinute: -1, GlobalPerSecond: -1}
	}
	return cfg
}

func newFake(rec *recorder, limits bool, rtt time.Duration, log *slog.Logger) (*tgtest.Server, error) {
	var opts []tgtest.Option
	if limits {
		opts = append(opts, tgtest.WithRateLimits(tgtest.DefaultRateLimits()))
	}
	return tgtest.NewStandalone(tgtest.Standalone{
		Middleware: rec.middleware(rtt),
		OnError:    func(msg string) { log.Error("fake bot api", "err", msg) },
	}, opts...)
}

// awaitPolling returns once the bot has started up: it registers its
// commands just before it starts polling. (A held getUpdates is recorded
// only when answered, so it cannot be waited for.)
func awaitPolling(ctx context.Context, fake *tgtest.Server) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return fake.WaitFor(ctx, func() bool { return len(fake.CallsTo("setMyCommands")) > 0 })
}

// runLoad drives cfg.chats conversations through the real bot.
func runLoad(ctx context.Context, cfg config, log *slog.Logger) (*report, error) {
	d := &driver{cfg: cfg, log: log, rec: newRecorder(), chats: plans(cfg.chats, cfg.groups)}
	for _, c := range d.chats {
		d.rec.addChat(c.idx, c.chat.ID, c.group)
	}
	d.rec.onPrompt = d.press
	fake, err := newFake(d.rec, cfg.limits, cfg.rtt, log)
	if err != nil {
		return nil, err
	}
	defer fake.Close()
	d.fake = fake
	byKey := map[string]int{}
	for _, c := range d.chats {
		byKey[telegram.SessionKey(c.chat.ID, 0)] = c.idx
	}
	d.eng = &scripted{script: d.turnScript, chatOf: func(k string) (int, bool) { i, ok := byKey[k]; return i, ok }}

	b, err := startBot(ctx, botConfig(fake, d.chats, cfg.limits, cfg.global), d.eng, log)
	if err != nil {
		return nil, err
	}
	if err := awaitPolling(ctx, fake); err != nil {
		return nil, errors.Join(fmt.Errorf("bot did not start polling: %w", err), b.stop())
	}
	base := usageNow()
	began := time.Now()
	var wg sync.WaitGroup
	for _, c := range d.chats {
		wg.Go(func() { d.converse(ctx, c) })
	}
	wg.Wait()
	elapsed := time.Since(began)
	use := usageNow().since(base)
	rep := d.report(elapsed, use)
	if err := b.stop(); err != nil && !errors.Is(err, context.Canceled) {
		return rep, fmt.Errorf("bot: %w", err)
	}
	return rep, ctx.Err()
}

// converse is one user: a prompt, wait for the whole final, think, repeat.
func (d *driver) converse(ctx context.Context, c chatPlan) {
	r := rand.New(rand.NewPCG(d.cfg.seed, uint64(c.idx)))
	if !sleepCtx(ctx, time.Duration(r.Float64()*float64(d.cfg.stagger))) {
		return
	}
	last := d.cfg.turns
	if d.cfg.followups {
		last++
	}
	for n := 1; n <= last; n++ {
		id := turnID{chat: c.idx, turn: n}
		text := promptText(id)
		if c.group {
			text = "@" + d.fake.Bot().Username + " " + text
		}
		t := d.rec.begin(id, n > d.cfg.turns)
		d.fake.SendMessage(c.user, c.chat, text)
		wait := time.NewTimer(d.cfg.turnTime + d.cfg.lostAfter)
		select {
		case <-t.done:
		case <-wait.C:
			d.log.Error("final not delivered in time", "chat", c.idx, "turn", n)
		case <-ctx.Done():
			wait.Stop()
			return
		}
		wait.Stop()
		if n == d.cfg.turns && d.cfg.followups {
			continue // the follow-up comes right after the answer
		}
		think := time.Duration((0.5 + r.Float64()) * float64(d.cfg.think))
		if !sleepCtx(ctx, think) {
			return
		}
	}
}

// press is the user reading the approval prompt and tapping Approve.
func (d *driver) press(chat, msgID int, data string) {
	r := rand.New(rand.NewPCG(d.cfg.seed, uint64(msgID)<<20|uint64(chat)))
	time.Sleep(time.Duration((0.5 + r.Float64()) * float64(d.cfg.pressDelay)))
	c := d.chats[chat]
	d.rec.pressed(chat)
	d.fake.PressButton(c.user, c.chat, msgID, data)
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
