package prefs

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"
)

func TestAcceptUpdateWritesAllThreeTogether(t *testing.T) {
	s := openTest(t)
	p := &Prompt{UpdateID: 900, ChatID: 4, MessageID: 12, UserID: 8, Text: "fix the bug",
		Files: []File{{Kind: "photo", FileID: "AgAD1", Size: 1234, Width: 1280, Height: 853},
			{Kind: "document", FileID: "BQAD2", Name: "app.log", MIME: "text/plain", Size: 14}}}
	seq, fresh, err := s.AcceptUpdate(900, "4", p)
	must(t, err)
	if !fresh || seq == 0 {
		t.Fatalf("AcceptUpdate = seq %d fresh %v", seq, fresh)
	}
	must(t, s.view(func(tx *txn) error {
		handled, err := tx.handled(900)
		must(t, err)
		off, err := tx.offset()
		must(t, err)
		q, err := tx.allPendingPrompts()
		must(t, err)
		if !handled || off != 901 || len(q) != 1 || q[0].Seq != seq || !reflect.DeepEqual(q[0].Prompt, *p) {
			t.Errorf("after accept: handled %v offset %d queue %+v", handled, off, q)
		}
		return nil
	}))

	// A redelivered update queues nothing more but still moves the offset.
	must(t, s.SetOffset(0))
	seq, fresh, err = s.AcceptUpdate(900, "4", p)
	must(t, err)
	if fresh || seq != 0 {
		t.Errorf("duplicate accept = seq %d fresh %v", seq, fresh)
	}
	if q := pendingOf(t, s, "4"); len(q) != 1 {
		t.Errorf("duplicate queued again: %+v", q)
	}
	if off, _ := s.Offset(); off != 901 {
		t.Errorf("offset after duplicate = %d", off)
	}

	// Updates that need no run: handled and offset only.
	seq, fresh, err = s.AcceptUpdate(901, "", nil)
	must(t, err)
	if !fresh || seq != 0 {
		t.Errorf("accept without prompt = seq %d fresh %v", seq, fresh)
	}
	if ok, _ := s.Handled(901); !ok {
		t.Error("update without prompt not marked handled")
	}

	// Ids may restart lower; the offset follows the update, it is not a high-water mark.
	must3(t)(s.AcceptUpdate(17, "", nil))
	if off, _ := s.Offset(); off != 18 {
		t.Errorf("offset after lower id = %d, want 18", off)
	}
}

func TestAcceptUpdateFailureLeavesNothing(t *testing.T) {
	s := openTest(t)
	must3(t)(s.AcceptUpdate(10, "k", &Prompt{Text: "first"}))
	// An empty key makes the enqueue step fail after handled and offset were written in the tx.
	if _, _, err := s.AcceptUpdate(11, "", &Prompt{Text: "second"}); err == nil {
		t.Fatal("accept with empty key succeeded")
	}
	handled, _ := s.Handled(11)
	off, _ := s.Offset()
	all, _ := s.AllPendingPrompts()
	if handled || off != 11 || len(all) != 1 {
		t.Fatalf("failed accept left traces: handled %v offset %d pending %d", handled, off, len(all))
	}
}

// A reader must never see one part of an accepted update without the others.
func TestAcceptUpdateIsAtomicForConcurrentReaders(t *testing.T) {
	s := openTest(t)
	const n = 200
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			must(t, s.view(func(tx *txn) error {
				off, err := tx.offset()
				if err != nil {
					return err
				}
				q, err := tx.allPendingPrompts() // all under "k"
				if err != nil {
					return err
				}
				// Updates 1..off-1 have been accepted, each with exactly one prompt.
				if int64(len(q)) != max(off-1, 0) {
					t.Errorf("offset %d but %d prompts queued", off, len(q))
				}
				if off > 1 {
					last, err := tx.handled(off - 1)
					if err != nil {
						return err
					}
					next, err := tx.handled(off)
					if err != nil {
						return err
					}
					if !last || next {
						t.Errorf("offset %d: handled(last)=%v handled(next)=%v", off, last, next)
					}
				}
				return nil
			}))
		}
	}()
	for id := int64(1); id <= n; id++ {
		must3(t)(s.AcceptUpdate(id, "k", &Prompt{UpdateID: id, Text: fmt.Sprint(id)}))
	}
	close(done)
	wg.Wait()
}

func TestConcurrentChats(t *testing.T) {
	s := openTest(t)
	s.db.NoSync = true // this test is about interleaving, not durability; fsync would dominate
	const chats, rounds = 50, 6
	var wg sync.WaitGroup
	for c := range chats {
		wg.Go(func() {
			key := fmt.Sprint(-1000 - c)
			for r := range rounds {
				id := int64(c*rounds + r + 1)
				seq, fresh, err := s.AcceptUpdate(id, key, &Prompt{UpdateID: id, ChatID: int64(-1000 - c), Text: fmt.Sprint(r)})
				if err != nil || !fresh {
					t.Errorf("accept %d: %v fresh %v", id, err, fresh)
					return
				}
				errs := []error{
					s.SetModel(key, fmt.Sprint("model-", c)),
					s.StartSession(key, fmt.Sprint("sess-", c, "-", r), "", ""),
					s.AddLive(LiveMessage{Kind: LiveProgress, ChatID: int64(-1000 - c), MessageID: r, SessionKey: key}),
				}
				// Every round is a new session costing 0.25 in the chat and
				// 0.5 under the key "shared", which all chats write at once.
				_, err = s.RecordTurnCost(key, fmt.Sprint("sess-", c, "-", r), 0.25, time.Now())
				errs = append(errs, err)
				_, err = s.RecordTurnCost("shared", fmt.Sprint("shared-", c, "-", r), 0.5, time.Now())
				errs = append(errs, err)
				if r%2 == 0 {
					errs = append(errs, s.DonePrompt(key, seq), s.RemoveLive(int64(-1000-c), r))
				}
				_, err = s.Prefs(key)
				errs = append(errs, err)
				_, err = s.AllPendingPrompts()
				errs = append(errs, err)
				for _, err := range errs {
					if err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()

	all, err := s.AllPendingPrompts()
	must(t, err)
	if len(all) != chats*rounds/2 {
		t.Errorf("pending = %d, want %d", len(all), chats*rounds/2)
	}
	live, _ := s.ListLive()
	if len(live) != chats*rounds/2 {
		t.Errorf("live = %d, want %d", len(live), chats*rounds/2)
	}
	for c := range chats {
		key := fmt.Sprint(-1000 - c)
		p, _ := s.Prefs(key)
		rec, _, _ := s.Session(key)
		cost, _ := s.Cost(key)
		if p.Model != fmt.Sprint("model-", c) || rec.SessionID != fmt.Sprint("sess-", c, "-", rounds-1) || cost != 0.25*rounds {
			t.Errorf("chat %s: prefs %+v session %+v cost %v", key, p, rec, cost)
		}
	}
	if shared, _ := s.Cost("shared"); shared != 0.5*chats*rounds {
		t.Errorf("shared cost = %v, want %v (lost updates)", shared, 0.5*chats*rounds)
	}
}

func BenchmarkAcceptUpdate(b *testing.B) {
	s := openAt(b, dbPath(b), withHandledWindow(1000))
	p := &Prompt{ChatID: 1, MessageID: 2, UserID: 3, Text: "please refactor the parser and run the tests"}
	var id int64
	for b.Loop() {
		id++
		seq, _, err := s.AcceptUpdate(id, "1", p)
		if err != nil {
			b.Fatal(err)
		}
		// Keep the queue short, as the bot does once prompts have run.
		if err := s.DonePrompt("1", seq); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCloseDuringUseIsClean(t *testing.T) {
	s, err := Open(t.Context(), dbPath(t), WithLogger(quietLogger()))
	must(t, err)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				_, _, err := s.AcceptUpdate(int64(i*100+j), "k", &Prompt{Text: "x"})
				if err != nil {
					if !errors.Is(err, errClosed) {
						t.Errorf("accept during close: %v", err)
					}
					return
				}
			}
		})
	}
	for range 3 {
		wg.Go(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
	wg.Wait()
	if _, err := s.Offset(); !errors.Is(err, errClosed) {
		t.Errorf("Offset after Close: %v", err)
	}
}

func TestEditPrompt(t *testing.T) {
	s := openTest(t)
	seq, _, err := s.AcceptUpdate(50, "7", &Prompt{ChatID: 7, MessageID: 3, Text: "fix teh bug", Files: []File{{Kind: "photo", FileID: "A"}}})
	must(t, err)
	found, err := s.EditPrompt("7", seq, "fix the bug")
	must(t, err)
	q := pendingOf(t, s, "7")
	if !found || len(q) != 1 || q[0].Text != "fix the bug" || len(q[0].Files) != 1 || q[0].MessageID != 3 {
		t.Fatalf("after edit: found %v, queue %+v", found, q)
	}
	must(t, s.DonePrompt("7", seq))
	if found, err := s.EditPrompt("7", seq, "late"); found || err != nil {
		t.Errorf("edit of a prompt that ran: found %v, %v", found, err)
	}
	if found, err := s.EditPrompt("8", 1, "x"); found || err != nil {
		t.Errorf("edit in an unknown queue: found %v, %v", found, err)
	}
}

// A queued prompt steered into a running turn keeps the id it went under
// until cleared.
func TestSteerPrompt(t *testing.T) {
	s := openTest(t)
	seq, _, err := s.AcceptUpdate(51, "7", &Prompt{ChatID: 7, MessageID: 4, Text: "and the tests"})
	must(t, err)
	found, err := s.SteerPrompt("7", seq, "id-1")
	must(t, err)
	if q := pendingOf(t, s, "7"); !found || len(q) != 1 || q[0].SteerID != "id-1" || q[0].Text != "and the tests" {
		t.Fatalf("after the mark: found %v, queue %+v", found, q)
	}
	_, err = s.SteerPrompt("7", seq, "")
	must(t, err)
	if q := pendingOf(t, s, "7"); len(q) != 1 || q[0].SteerID != "" {
		t.Fatalf("after the clear: %+v", q)
	}
	must(t, s.DonePrompt("7", seq))
	if found, err := s.SteerPrompt("7", seq, "id-2"); found || err != nil {
		t.Errorf("mark of a prompt that ran: found %v, %v", found, err)
	}
}
