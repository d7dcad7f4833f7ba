package chat

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine"
)

// holder is a conversation for the pool: it counts eviction requests and
// says busy when told to.
type holder struct {
	name    string
	evicted int
	busy    bool
}

func (h *holder) Evict() { h.evicted++ }

func isBusy(h Holder, strict bool) bool { return h.(*holder).busy }

// A full pool asks its least recently used idle holder for the slot, never
// a busy one; the slot goes to the waiting holder once released, and a
// waiter whose context ends gives up with its error.
func TestPoolEvictsTheOldestIdleHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		p := NewPool(2)
		old, busy, next := &holder{name: "old"}, &holder{name: "busy", busy: true}, &holder{name: "next"}
		for _, h := range []*holder{old, busy} {
			if err := p.Acquire(ctx, h, isBusy, func() { t.Fatal("waited with a free slot") }); err != nil {
				t.Fatal(err)
			}
		}
		p.Touch(busy)
		if p.Live() != 2 {
			t.Fatalf("live %d", p.Live())
		}
		got := make(chan error, 1)
		go func() { got <- p.Acquire(ctx, next, isBusy, func() { t.Error("told to wait with an idle holder") }) }()
		synctest.Wait()
		if old.evicted == 0 || busy.evicted != 0 {
			t.Fatalf("evictions: old %d, busy %d", old.evicted, busy.evicted)
		}
		if !p.Short() {
			t.Fatal("the pool is not short while a turn waits")
		}
		p.Release(old)
		if err := <-got; err != nil {
			t.Fatal(err)
		}
		if p.Short() || p.Live() != 2 {
			t.Fatalf("short %v, live %d", p.Short(), p.Live())
		}

		// Everyone busy: the waiter is told once and gives up with ctx.
		next.busy = true
		late := &holder{name: "late"}
		wctx, cancel := context.WithCancel(ctx)
		told := 0
		go func() { got <- p.Acquire(wctx, late, isBusy, func() { told++ }) }()
		synctest.Wait()
		cancel()
		if err := <-got; err != context.Canceled || told != 1 {
			t.Fatalf("err %v, told %d", err, told)
		}
	})
}

// Machines: the local one first, a choice no longer configured falls back
// to the default, and a name used twice is refused.
func TestMachinesByName(t *testing.T) {
	eng := struct{ engineStub }{}
	ms, err := NewMachines(MachineConfig{Engine: eng}, []MachineConfig{{Name: "zeta", Engine: eng}, {Name: "box", Engine: eng}}, "box")
	if err != nil {
		t.Fatal(err)
	}
	if got := ms.Names(); len(got) != 3 || got[0] != LocalMachine || got[1] != "box" || got[2] != "zeta" {
		t.Fatalf("names %v", got)
	}
	if ms.Named("gone").Name != "box" || ms.Named("zeta").Name != "zeta" || ms.Local().Name != LocalMachine {
		t.Fatal("names lead to the wrong machines")
	}
	if ms.Named("zeta").MaxLive != 4 || ms.Named("zeta").Where().Name != "zeta" {
		t.Fatal("defaults or the name in prompts missing")
	}
	if _, err := NewMachines(MachineConfig{Engine: eng}, []MachineConfig{{Name: "local", Engine: eng}}, ""); err == nil {
		t.Fatal("a second machine named local was taken")
	}
	if _, err := NewMachines(MachineConfig{Engine: eng}, nil, "nowhere"); err == nil {
		t.Fatal("an unknown default was taken")
	}
}

// engineStub is an engine never asked to start.
type engineStub struct{ engine.Engine }
