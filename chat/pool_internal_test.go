package chat

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/prefs"
)

// onePoolCore is a core with one machine of one slot, no frontend.
func onePoolCore() (*Core, *Machine) {
	ms, err := NewMachines(MachineConfig{MaxLive: 1, Engine: engineStub{}}, nil, "") // its engine is never asked to start
	if err != nil {
		panic(err)
	}
	return &Core{log: slog.New(slog.NewTextHandler(io.Discard, nil)), surface: quietSurface{},
		broker: approvals.New(approvals.Config{}), machines: ms, sessions: map[string]*session{}}, ms.Local()
}

var busy = holderBusy

// An eviction request is for the turn that asked: when that turn no longer
// waits (here it gave up; it may also have got another slot), an idle
// holder that reads the request later keeps its process.
func TestStaleEvictKeepsTheProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		b, m := onePoolCore()
		holder := newSession(b, "1", Place{ChatID: 1})
		sess := enginetest.New("s1", func(*enginetest.Turn) {})
		defer sess.Close(ctx)
		holder.conn, holder.mach = sess, m
		if err := m.Pool.Acquire(ctx, holder, busy, func() {}); err != nil {
			t.Fatal(err)
		}

		// Another chat needs the only slot: the idle holder is asked for it.
		other := newSession(b, "2", Place{ChatID: 2})
		other.mach = m
		wctx, giveUp := context.WithCancel(ctx)
		waited := make(chan error, 1)
		go func() { waited <- m.Pool.Acquire(wctx, other, busy, func() {}) }()
		synctest.Wait()
		if len(holder.evict) != 1 {
			t.Fatal("the holder was not asked for its slot")
		}
		giveUp() // e.g. /cancel while waiting
		if err := <-waited; err == nil {
			t.Fatal("acquire succeeded after giving up")
		}

		// The holder reads the request only now: nobody needs the slot.
		idled := make(chan bool, 1)
		go func() { idled <- holder.idle(ctx) }()
		synctest.Wait()
		select {
		case <-sess.Done():
			t.Fatal("an eviction nobody needs any more closed the process")
		default:
		}
		signal(holder.wake)
		if !<-idled || holder.liveConn() == nil {
			t.Error("the idle holder lost its process")
		}
	})
}

// A holder with a turn coming (a queued prompt) keeps its warm process
// from a turn that waits for a slot, for QueuedGrace: that turn waits
// rather than make the holder start again for its next. Past the grace the
// waiting turn gets the slot, so a chatty chat cannot keep it for ever.
func TestQueuedHolderKeepsItsProcessForAWhile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		b, m := onePoolCore()
		holder := newSession(b, "1", Place{ChatID: 1})
		holder.mach = m
		holder.queue = []prefs.QueuedPrompt{{Key: "1", Seq: 7}} // its next turn is coming
		if err := m.Pool.Acquire(ctx, holder, busy, func() {}); err != nil {
			t.Fatal(err)
		}
		other := newSession(b, "2", Place{ChatID: 2})
		other.mach = m
		told := false
		waited := make(chan error, 1)
		go func() { waited <- m.Pool.Acquire(ctx, other, busy, func() { told = true }) }()
		synctest.Wait()
		if len(holder.evict) != 0 {
			t.Fatal("a holder with a turn coming was asked for its slot at once")
		}
		if !told {
			t.Error("the waiting turn was not told it waits")
		}
		time.Sleep(QueuedGrace + 6*time.Second) // past the grace and one re-check
		synctest.Wait()
		if len(holder.evict) != 1 {
			t.Fatal("past the grace, the holder was not asked for its slot")
		}
		m.Pool.Release(holder) // it closes its process
		if err := <-waited; err != nil {
			t.Fatal(err)
		}
	})
}
