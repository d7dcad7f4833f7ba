package chat_test

import (
	"context"
	"maps"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/chat"
)

// Starts admits at most its bound at once, the rest in the order they
// came; a start that waits past StartNoticeAfter is told how many are
// ahead of it, one that waits less is told nothing.
func TestStartsAdmitInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := chat.NewStarts(2)
		var mu sync.Mutex
		var admitted []int
		told := map[int]int{}
		releases := map[int]func(){}
		for i := range 5 {
			go func() {
				rel, err := s.Admit(context.Background(), nil, func(ahead int) { mu.Lock(); told[i] = ahead; mu.Unlock() })
				if err != nil {
					t.Errorf("start %d: %v", i, err)
					return
				}
				mu.Lock()
				admitted = append(admitted, i)
				releases[i] = rel
				mu.Unlock()
			}()
			synctest.Wait() // arrival order is i's order
		}
		mu.Lock()
		if !slices.Equal(admitted, []int{0, 1}) || s.InFlight() != 2 {
			t.Fatalf("admitted %v (in flight %d), want [0 1]: the bound is 2", admitted, s.InFlight())
		}
		mu.Unlock()
		time.Sleep(chat.StartNoticeAfter - time.Millisecond)
		synctest.Wait()
		mu.Lock()
		if len(told) != 0 {
			t.Errorf("told %v before StartNoticeAfter: a short wait costs no message", told)
		}
		mu.Unlock()
		time.Sleep(time.Millisecond)
		synctest.Wait()
		mu.Lock()
		if want := map[int]int{2: 2, 3: 3, 4: 4}; !maps.Equal(told, want) {
			t.Errorf("told %v, want %v (starts ahead: in flight, then waiting first)", told, want)
		}
		releases[1]()
		releases[1]() // once only
		mu.Unlock()
		synctest.Wait()
		mu.Lock()
		if !slices.Equal(admitted, []int{0, 1, 2}) {
			t.Errorf("after one release admitted %v, want [0 1 2]", admitted)
		}
		releases[0]()
		mu.Unlock()
		synctest.Wait()
		mu.Lock()
		releases[2]()
		mu.Unlock()
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(admitted, []int{0, 1, 2, 3, 4}) || s.InFlight() != 2 {
			t.Errorf("admitted %v (in flight %d), want all five in order, 2 in flight", admitted, s.InFlight())
		}
		releases[3]()
		releases[4]()
		if s.InFlight() != 0 {
			t.Errorf("in flight %d after every release, want 0", s.InFlight())
		}
	})
}

// A start that never reports back keeps its place at most MaxStartHold;
// a wait given up leaves the queue, and the next in line goes.
func TestStartsBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := chat.NewStarts(1)
		if _, err := s.Admit(context.Background(), nil, nil); err != nil { // never released
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		gaveUp := make(chan error, 1)
		go func() { _, err := s.Admit(ctx, nil, nil); gaveUp <- err }()
		synctest.Wait()
		var third time.Time
		go func() {
			rel, err := s.Admit(context.Background(), nil, nil)
			if err != nil {
				t.Error(err)
				return
			}
			third = time.Now()
			rel()
		}()
		synctest.Wait()
		cancel()
		if err := <-gaveUp; err == nil {
			t.Fatal("a cancelled wait was admitted")
		}
		began := time.Now()
		time.Sleep(chat.MaxStartHold + time.Second)
		synctest.Wait()
		if third.IsZero() {
			t.Fatal("the third start was never admitted: a silent start kept its place for ever")
		}
		if got := third.Sub(began); got > chat.MaxStartHold {
			t.Errorf("the third start waited %v after the cancel, want at most MaxStartHold (%v)", got, chat.MaxStartHold)
		}
		if s.InFlight() != 0 {
			t.Errorf("in flight %d, want 0", s.InFlight())
		}
	})
}
