package telegram_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// gatedScript answers at once, except prompts starting with "hold", which
// wait until the test opens their gate: a chat that is busy with a turn.
type gatedScript struct {
	mu    sync.Mutex
	gates map[string]chan struct{}
}

func (g *gatedScript) gate(prompt string) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gates == nil {
		g.gates = map[string]chan struct{}{}
	}
	ch, ok := g.gates[prompt]
	if !ok {
		ch = make(chan struct{})
		g.gates[prompt] = ch
	}
	return ch
}

func (g *gatedScript) run(tr *enginetest.Turn) {
	tr.Start("m")
	if strings.HasPrefix(tr.Prompt, "hold") {
		select {
		case <-g.gate(tr.Prompt):
		case <-tr.Interrupted():
			tr.Aborted()
			return
		}
	}
	tr.Complete("answer to " + tr.Prompt)
}

// sessionsOf returns the sessions started for a session key, oldest first.
func (e *fakeEngine) sessionsOf(key string) []*enginetest.Session {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []*enginetest.Session
	for i, s := range e.specs {
		if s.SessionKey == key {
			out = append(out, e.sessions[i])
		}
	}
	return out
}

func isClosed(s *enginetest.Session) bool {
	select {
	case <-s.Done():
		return true
	default:
		return false
	}
}

// With max_live_sessions = 2 and three chats: the least recently used idle
// session is closed to make room, a busy one never is, and when every
// slot is busy a new turn waits in line and the user is told.
func TestPoolEvictsIdleNeverBusy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &gatedScript{}
		users := []tgtest.User{{ID: 4242, FirstName: "Ada"}, {ID: 5001, FirstName: "Bo"}, {ID: 5002, FirstName: "Cy"}}
		h := newHarness(t, g.run, func(c *telegram.Config) {
			c.MaxLive = 2
			c.AllowedUsers = []int64{users[0].ID, users[1].ID, users[2].ID}
		})
		chat := func(i int) tgtest.Chat { return tgtest.PrivateChat(users[i]) }
		key := func(i int) string { return strconv.FormatInt(users[i].ID, 10) }
		say := func(i int, text string) { h.tg.SendMessage(users[i], chat(i), text) }
		live := func(i int) *enginetest.Session {
			t.Helper()
			ss := h.eng.sessionsOf(key(i))
			if len(ss) == 0 {
				t.Fatalf("chat %d never started a session", i)
			}
			return ss[len(ss)-1]
		}

		// A then B use the bot; both stay live and idle, A the least recent.
		say(0, "a1")
		h.awaitText(chat(0).ID, "answer to a1")
		time.Sleep(time.Second) // on the bubble's clock B comes later only if time passes
		say(1, "b1")
		h.awaitText(chat(1).ID, "answer to b1")
		a1, b1 := live(0), live(1)

		// C needs a slot: A, the least recently used idle session, is closed.
		say(2, "c1")
		h.awaitText(chat(2).ID, "answer to c1")
		h.tg.Await(wait, "A's idle session closed", func() bool { return isClosed(a1) })
		if isClosed(b1) {
			t.Fatal("B's session was closed, but A's was the least recently used")
		}

		// B is busy; A comes back: C (idle) makes room, B (busy) is kept.
		say(1, "hold b2")
		h.awaitText(chat(1).ID, "working")
		c1 := live(2)
		say(0, "a2")
		h.awaitText(chat(0).ID, "answer to a2")
		h.tg.Await(wait, "C's idle session closed", func() bool { return isClosed(c1) })
		if isClosed(b1) {
			t.Fatal("B's session was closed while its turn was running")
		}

		// A is busy too: C's turn waits in line, and C is told so.
		say(0, "hold a3")
		h.tg.Await(wait, "A's second turn running", func() bool {
			return strings.Contains(strings.Join(h.messages(chat(0).ID), "\n"), "answer to a2") &&
				len(h.tg.Messages(chat(0).ID)) >= 3 // a1's and a2's answers (quick: no progress), a3's progress
		})
		say(2, "c2")
		notice := h.awaitText(chat(2).ID, "Waiting for a free Claude slot")
		if !strings.Contains(notice.Text, "max_live_sessions") {
			t.Errorf("wait notice does not name the setting: %q", notice.Text)
		}
		if n := len(h.eng.sessionsOf(key(2))); n != 1 {
			t.Fatalf("C started a session (%d) while both slots were busy", n)
		}
		if isClosed(b1) || isClosed(live(0)) {
			t.Fatal("a busy session was closed to make room")
		}
		// A's turn ends: its now idle session makes room for C at once (the
		// pool re-checks on its own only every 5 s).
		a2 := live(0)
		released := time.Now()
		close(g.gate("hold a3"))
		h.awaitText(chat(0).ID, "answer to hold a3")
		h.awaitText(chat(2).ID, "answer to c2")
		if d := time.Since(released); d > 4*time.Second {
			t.Errorf("C waited %v after A's turn ended: the waiting turn was not woken", d)
		}
		if !isClosed(a2) {
			t.Error("C ran, so A's idle session should have been closed for it")
		}
		if isClosed(b1) {
			t.Error("B's session was closed while its turn was running")
		}
		close(g.gate("hold b2"))
		h.awaitText(chat(1).ID, "answer to hold b2")
	})
}

// A chat that has used the bot and gone idle costs no goroutine: after
// 1,000 chats each ran a turn and their sessions closed on the idle
// timeout, the goroutine count is back to where it was before any chat.
func TestIdleChatsCostNoGoroutines(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 turns")
	}
	synctest.Test(t, func(t *testing.T) {
		const chats, idle = 1000, 20 * time.Millisecond
		h := newHarness(t, echoScript, func(c *telegram.Config) {
			c.AllowAnyUser = true
			c.IdleTimeout = idle
		})
		h.tg.Await(wait, "the bot is up", func() bool { return len(h.tg.CallsTo("setMyCommands")) > 0 })
		synctest.Wait() // start-up work has wound down: every goroutine left waits for something
		base := botGoroutines()

		const parallel = 4 // = max_live_sessions: idle sessions are evicted as new chats come
		var wg sync.WaitGroup
		sem := make(chan struct{}, parallel)
		errs := make(chan error, chats)
		for i := range chats {
			u := tgtest.User{ID: int64(100_000 + i), FirstName: "U" + strconv.Itoa(i)}
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				want := "Answer: hi " + strconv.Itoa(i)
				h.tg.SendMessage(u, tgtest.PrivateChat(u), "hi "+strconv.Itoa(i))
				if err := awaitText(h.tg, u.ID, want); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if n := len(h.eng.starts()); n != chats {
			t.Fatalf("%d sessions started, want one per chat", n)
		}

		// The last sessions close on the idle timeout.
		time.Sleep(idle)
		synctest.Wait()
		open := 0
		for i := range chats {
			if !isClosed(h.eng.session(i)) {
				open++
			}
		}
		if n := botGoroutines(); open != 0 || n > base {
			var dump bytes.Buffer
			_ = pprof.Lookup("goroutine").WriteTo(&dump, 1)
			t.Fatalf("%d sessions still open, %d goroutines, baseline %d:\n%s", open, n, base, dump.String())
		}
	})
}

// awaitText waits for a bot message containing want, from any goroutine.
func awaitText(tg *tgtest.Server, chatID int64, want string) error {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	err := tg.WaitFor(ctx, func() bool {
		for _, m := range tg.Messages(chatID) {
			if strings.Contains(m.Text, want) {
				return true
			}
		}
		return false
	})
	if err != nil {
		return fmt.Errorf("chat %d: no message with %q: %w", chatID, want, err)
	}
	return nil
}

// botGoroutines counts the goroutines running the module's code (the bot,
// the fakes, this test), leaving out what the runtime and the testing
// framework run beside the bubble: one of those starting or ending at the
// moment of counting made the count flaky (9 against 8, with a dump of 8).
func botGoroutines() int {
	var dump bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&dump, 2)
	n := 0
	for _, g := range strings.Split(dump.String(), "\n\n") {
		if strings.Contains(g, "github.com/untether/untether/") {
			n++
		}
	}
	return n
}
