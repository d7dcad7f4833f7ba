package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/telegram"
)

// idleReport is the memory picture once every chat has used the bot and
// gone idle (no live Claude session).
type idleReport struct {
	chats    int
	done     int
	base     goroutines // bot polling, no chat seen yet
	idle     goroutines
	live     int64  // Claude sessions still open
	rss      int64  // resident now, after a GC returned free memory
	heap     uint64 // live Go heap
	heapBase uint64 // live heap with the bot up, before any chat
	heapBot  uint64 // live heap once the fake (and what it kept) is gone
	maxRSS   int64
	elapsed  time.Duration
}

func (r *idleReport) print(w io.Writer) {
	fmt.Fprintf(w, "untether load, idle mode: %d chats used the bot once (%d finals delivered) in %.1fs, then went idle\n",
		r.chats, r.done, r.elapsed.Seconds())
	fmt.Fprintf(w, "goroutines: %d before any chat (%d of them HTTP connections), %d with all chats idle (%d HTTP connections); live Claude sessions: %d\n",
		r.base.all, r.base.http, r.idle.all, r.idle.http, r.live)
	fmt.Fprintf(w, "memory, whole process (bot + fake Bot API holding every message + driver): RSS now %.1f MB, max RSS %.1f MB, live Go heap %.1f MB\n",
		mb(r.rss), mb(r.maxRSS), float64(r.heap)/(1<<20))
	fmt.Fprintf(w, "live Go heap of the bot: %.1f MB before any chat, %.1f MB with the chats idle (after closing the fake): %.0f bytes per idle chat\n",
		float64(r.heapBase)/(1<<20), float64(r.heapBot)/(1<<20), (float64(r.heapBot)-float64(r.heapBase))/float64(r.chats))
	fmt.Fprintf(w, "idle: chats=%d goroutines_base=%d goroutines_idle=%d goroutines_idle_non_http=%d rss_mb=%.1f max_rss_mb=%.1f heap_mb=%.1f bot_heap_mb=%.1f\n",
		r.chats, r.base.all, r.idle.all, r.idle.all-r.idle.http, mb(r.rss), mb(r.maxRSS), float64(r.heap)/(1<<20), float64(r.heapBot)/(1<<20))
}

// goroutines counts all goroutines, and those serving HTTP keep-alive
// connections (client or fake server side), which follow the number of
// concurrent Bot API calls, not the number of chats.
type goroutines struct{ all, http int }

func countGoroutines() goroutines {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var g goroutines
	for _, stack := range strings.Split(string(buf), "\n\n") {
		if !strings.HasPrefix(stack, "goroutine ") {
			continue
		}
		g.all++
		if strings.Contains(stack, "net/http.(*persistConn)") || strings.Contains(stack, "net/http.(*conn).serve") {
			g.http++
		}
	}
	return g
}

// liveHeap is the Go heap still reachable after a collection.
func liveHeap() uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// countingEngine wraps scripted to know how many sessions are open.
type countingEngine struct {
	*scripted
	open atomic.Int64
}

func (e *countingEngine) Start(ctx context.Context, spec engine.Spec) (engine.Conn, error) {
	c, err := e.scripted.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	e.open.Add(1)
	go func() {
		<-c.Done()
		e.open.Add(-1)
	}()
	return c, nil
}

// runIdle has idleChats chats send one message each (50 at a time), waits
// for every final and for every session to be closed by the idle timeout,
// then measures. Limits are off: this is about memory, not pacing.
func runIdle(ctx context.Context, cfg config, log *slog.Logger) (*idleReport, error) {
	cfg.answerKB, cfg.turnTime, cfg.approvalEvery, cfg.streamRate = 0, 0, 0, 0
	if cfg.memProfile != "" {
		runtime.MemProfileRate = 256 // fine grained: the point is what each idle chat keeps
	}
	d := &driver{cfg: cfg, log: log, rec: newRecorder(), chats: plans(cfg.idleChats, cfg.idleChats/5)}
	for _, c := range d.chats {
		d.rec.addChat(c.idx, c.chat.ID, c.group)
	}
	fake, err := newFake(d.rec, false, 0, log)
	if err != nil {
		return nil, err
	}
	d.fake = fake
	// Only d.fake refers to the fake from here on, so it can be dropped
	// and collected before the bot's own heap is measured.
	defer func() {
		if d.fake != nil {
			d.fake.Close()
		}
	}()
	byKey := map[string]int{}
	for _, c := range d.chats {
		byKey[telegram.SessionKey(c.chat.ID, 0)] = c.idx
	}
	eng := &countingEngine{scripted: &scripted{script: d.turnScript, chatOf: func(k string) (int, bool) { i, ok := byKey[k]; return i, ok }}}
	d.eng = eng.scripted

	bcfg := botConfig(d.fake, d.chats, false, 0)
	fake = nil
	bcfg.MaxLive = 0 // the default (4): idle holders are evicted as new chats arrive
	bcfg.IdleTimeout = cfg.idleTimeout
	// Quiet: closing the fake at the end makes the idle bot's poll fail.
	b, err := startBot(ctx, bcfg, eng, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, err
	}
	rep := &idleReport{chats: cfg.idleChats}
	if err := awaitPolling(ctx, d.fake); err != nil {
		return nil, errors.Join(fmt.Errorf("bot did not start polling: %w", err), b.stop())
	}
	settledGoroutines(ctx)
	rep.base = countGoroutines()
	rep.heapBase = liveHeap()
	began := time.Now()

	var wg sync.WaitGroup
	var done atomic.Int64
	sem := make(chan struct{}, 50)
	for _, c := range d.chats {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			id := turnID{chat: c.idx, turn: 1}
			text := promptText(id)
			if c.group {
				text = "@" + d.fake.Bot().Username + " " + text
			}
			t := d.rec.begin(id, false)
			d.fake.SendMessage(c.user, c.chat, text)
			select {
			case <-t.done:
				done.Add(1)
			case <-time.After(cfg.lostAfter):
				log.Error("final not delivered in time", "chat", c.idx)
			case <-ctx.Done():
			}
		})
	}
	wg.Wait()
	rep.elapsed = time.Since(began)
	rep.done = int(done.Load())

	// Idle: every session closed by the idle timeout, goroutines settled.
	for eng.open.Load() > 0 && sleepCtx(ctx, 100*time.Millisecond) {
	}
	rep.live = eng.open.Load()
	settledGoroutines(ctx)
	rep.idle = countGoroutines()
	rep.heap = liveHeap()
	rep.rss = currentRSS()
	rep.maxRSS = usageNow().maxRSS
	// What remains once the fake and its record of every message are gone
	// is the bot's (plus the driver's small per-turn records).
	d.fake.Close() // waits for calls in flight: nothing observes after this
	d.fake = nil
	d.rec.mu.Lock()
	d.rec.turns, d.rec.current = nil, nil
	d.rec.mu.Unlock()
	rep.heapBot = liveHeap()
	if cfg.memProfile != "" {
		if err := writeHeapProfile(cfg.memProfile); err != nil {
			return rep, errors.Join(err, b.stop())
		}
	}
	if err := b.stop(); err != nil && !errors.Is(err, context.Canceled) {
		return rep, fmt.Errorf("bot: %w", err)
	}
	if rep.done != rep.chats {
		return rep, fmt.Errorf("%d of %d finals delivered", rep.done, rep.chats)
	}
	return rep, ctx.Err()
}

// settledGoroutines waits until the goroutine count holds still for half a
// second (HTTP keep-alives, timers winding down), up to 20 s.
func settledGoroutines(ctx context.Context) int {
	n, since := runtime.NumGoroutine(), time.Now()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		if !sleepCtx(ctx, 100*time.Millisecond) {
			break
		}
		if m := runtime.NumGoroutine(); m != n {
			n, since = m, time.Now()
		} else if time.Since(since) >= 500*time.Millisecond {
			break
		}
	}
	return n
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("heap profile: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	return nil
}
