package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"time"

	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// junkReport is the owner's answer time with and without a flood of button
// presses from users who are not allowed (-junk-presses).
type junkReport struct {
	presses, strangers int
	before, during     time.Duration // owner's message → last part of the answer accepted
	answered           int           // answerCallbackQuery calls the bot made for the junk
	commitsAlone       uint64        // state-file commits of the owner's turn alone
	commits            uint64        // state-file commits of the owner's turn behind the junk
	peakGoroutines     int
}

func (r *junkReport) print(w io.Writer) {
	fmt.Fprintf(w, "untether load, junk mode: %d button presses from %d users who are not allowed, sent just before the owner's message\n",
		r.presses, r.strangers)
	fmt.Fprintf(w, "owner's answer (message → answer accepted): %d ms alone, %d ms behind the junk\n", ms(r.before), ms(r.during))
	fmt.Fprintf(w, "junk: presses=%d strangers=%d owner_answer_ms_before=%d owner_answer_ms_during=%d junk_answered=%d commits_alone=%d commits_during=%d peak_goroutines=%d\n",
		r.presses, r.strangers, ms(r.before), ms(r.during), r.answered, r.commitsAlone, r.commits, r.peakGoroutines)
}

// runJunk has one owner talk to the bot twice: alone, then right after
// strangers sent junkPresses button presses (spread over junkUsers users,
// each from their own private chat). Limits are on, as in the real world.
func runJunk(ctx context.Context, cfg config, log *slog.Logger) (*junkReport, error) {
	cfg.turnTime, cfg.approvalEvery, cfg.answerKB, cfg.streamRate = 0, 0, 1, 0
	d := &driver{cfg: cfg, log: log, rec: newRecorder(), chats: plans(1, 0)}
	owner := d.chats[0]
	d.rec.addChat(0, owner.chat.ID, false)
	fake, err := newFake(d.rec, cfg.limits, cfg.rtt, log)
	if err != nil {
		return nil, err
	}
	defer fake.Close()
	d.fake = fake
	key := telegram.SessionKey(owner.chat.ID, 0)
	d.eng = &scripted{script: d.turnScript, chatOf: func(k string) (int, bool) { return 0, k == key }}
	b, err := startBot(ctx, botConfig(fake, d.chats, cfg.limits, cfg.global), d.eng, log)
	if err != nil {
		return nil, err
	}
	if err := awaitPolling(ctx, fake); err != nil {
		return nil, errors.Join(fmt.Errorf("bot did not start polling: %w", err), b.stop())
	}
	rep := &junkReport{presses: cfg.junkPresses, strangers: max(cfg.junkUsers, 1)}
	turn := func(n int) (time.Duration, error) {
		id := turnID{chat: 0, turn: n}
		t := d.rec.begin(id, false)
		fake.SendMessage(owner.user, owner.chat, promptText(id))
		select {
		case <-t.done:
			return t.finalAt.Sub(t.sent), nil
		case <-time.After(cfg.lostAfter):
			return 0, fmt.Errorf("turn %d: the owner's answer did not come within %s", n, cfg.lostAfter)
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	commitsBefore := b.store.Commits()
	if rep.before, err = turn(1); err != nil {
		return rep, errors.Join(err, b.stop())
	}
	// The owner's chat may send 3 messages in any 3 s: let the first turn's
	// leave the window, so that only the junk differs between the turns.
	if !sleepCtx(ctx, 4*time.Second) {
		return rep, errors.Join(ctx.Err(), b.stop())
	}
	strangers := make([]tgtest.User, rep.strangers)
	for i := range strangers {
		strangers[i] = tgtest.User{ID: int64(900_000 + i), FirstName: "Stranger" + strconv.Itoa(i)}
	}
	answeredBefore := len(fake.CallsTo("answerCallbackQuery"))
	rep.commitsAlone = b.store.Commits() - commitsBefore
	commitsBefore = b.store.Commits()
	peak := make(chan int, 1)
	stopPeak := make(chan struct{})
	go func() { // sample goroutines while the junk is handled
		n := runtime.NumGoroutine()
		for {
			select {
			case <-stopPeak:
				peak <- n
				return
			case <-time.After(5 * time.Millisecond):
				n = max(n, runtime.NumGoroutine())
			}
		}
	}()
	for i := range cfg.junkPresses {
		s := strangers[i%len(strangers)]
		fake.SendCallbackQuery(s, tgtest.PrivateChat(s), 1+i, "junk:"+strconv.Itoa(i))
	}
	rep.during, err = turn(2)
	close(stopPeak)
	rep.peakGoroutines = <-peak
	rep.commits = b.store.Commits() - commitsBefore
	if serr := b.stop(); serr != nil && !errors.Is(serr, context.Canceled) {
		err = errors.Join(err, fmt.Errorf("bot: %w", serr))
	}
	// Counted once the bot has stopped and drained its outbox: answers
	// nobody waits for may go after the owner's.
	rep.answered = len(fake.CallsTo("answerCallbackQuery")) - answeredBefore
	return rep, err
}
