package telegram_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/host"
	"github.com/untether/untether/telegram/tgtest"
)

// A held Claude's send_file works after a restart: its `untether mcp`
// keeps the secret of the grant the first bot gave it, and the bot started
// next gives that grant back (the same session, the same path rule), so a
// file it sends then reaches the chat.
func TestHeldSendFileAfterRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		work := project(t, map[string][]byte{"out.txt": []byte("made while the bot was down")})
		files := newFakeFiles(t)
		h := newHarness(t, echoScript, withFiles(files, work))
		h.engine = newHeldEngine(h.eng)
		synctest.Wait()
		h.stop()
		h.start(withFiles(files, work))
		h.say("hello")
		h.awaitText(h.dm.ID, "hello")
		defer func() { // held, the session outlives the bot: end it with the test
			h.stop()
			_ = h.eng.session(0).Close(context.Background())
		}()
		synctest.Wait()
		files.mu.Lock()
		if len(files.grants) != 1 {
			files.mu.Unlock()
			t.Fatalf("%d grants, want the held process's one", len(files.grants))
		}
		key, first := files.grants[0].Key(), files.sessions[0]
		files.mu.Unlock()
		h.stop()
		synctest.Wait()

		// The next bot has a send_file server of its own, which knows no
		// grant until it is given back.
		next := newFakeFiles(t)
		h.start(withFiles(next, work))
		synctest.Wait()
		next.mu.Lock()
		sess, ok := next.restored[key]
		opened := len(next.grants)
		next.mu.Unlock()
		if !ok {
			t.Fatalf("the held process's grant was not given back (restored %v)", next.restored)
		}
		if sess.Key != first.Key || sess.Rule.WorkDir != first.Rule.WorkDir || !sess.Rule.WorkDirResolved {
			t.Errorf("restored session %+v, want %+v", sess, first)
		}
		if opened != 0 {
			t.Errorf("%d new grants: the held process was started again?", opened)
		}
		if got := next.callAs(sess, nil, "out.txt"); strings.Join(got, "|") != "Delivered" {
			t.Fatalf("send_file after the restart: %q", got)
		}
		docs := h.tg.Documents(h.dm.ID)
		if len(docs) != 1 || docs[0].Document.FileName != "out.txt" {
			t.Errorf("documents %+v, want out.txt", docs)
		}
	})
}

// failingEngine re-attaches to nothing: every re-attach fails with err.
type failingEngine struct {
	*heldEngine
	err error
}

func (e failingEngine) Reattach(context.Context, engine.Spec, string, uint64) (engine.Conn, error) {
	return nil, e.err
}

// A held Claude whose holder speaks another protocol version (the bot was
// upgraded in between) still runs: the turn is reported as one this bot
// cannot carry on, with what to do, and never as Claude having crashed.
func TestHeldOtherVersionIsReported(t *testing.T) {
	heldFailureIsReported(t, fmt.Errorf("%w: its holder speaks protocol 2, this bot 1", engine.ErrOtherVersion),
		"another version of untether", false)
}

// A held Claude on a host that does not answer when the bot starts may
// still run there: the turn says the host could not be reached, never
// that Claude crashed.
func TestHeldUnreachableHostIsReported(t *testing.T) {
	heldFailureIsReported(t, fmt.Errorf("reaching the holder of claude: ssh: connect: %w", host.ErrUnreachable),
		"could not be reached", true)
}

// heldFailureIsReported stops the bot while Claude waits for an approval,
// starts it again with re-attaches failing with err, and checks that the
// turn's messages say want (the approval prompt expired), never that
// Claude's process ended. kept: the record stays, to be tried again
// (TestHeldUnreachableHostPickedUpLater).
func heldFailureIsReported(t *testing.T, err error, want string, kept bool) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, oneAsk(toolReq(t, "hv", "Bash", map[string]any{"command": "make versions"})))
		held := newHeldEngine(h.eng)
		h.engine = held
		synctest.Wait()
		h.stop()
		h.start()
		h.say("go")
		defer func() { // the held session outlives the bot: end it with the test
			h.stop()
			_ = h.eng.session(0).Close(context.Background())
		}()
		prompt := h.awaitPrompt(h.dm.ID, "Approve", "make versions")
		h.stop()
		synctest.Wait()
		h.engine = failingEngine{held, err}
		h.start()
		h.awaitText(h.dm.ID, want)
		h.awaitResolved(h.dm.ID, prompt.ID, "Expired")
		for _, text := range h.messages(h.dm.ID) {
			if strings.Contains(text, "Claude's process ended") {
				t.Errorf("a running Claude reported as ended: %q", text)
			}
		}
		if held, err := h.store.ListHeld(); err != nil || (len(held) == 1) != kept {
			t.Errorf("held after the restart: %+v %v; want kept %v", held, err, kept)
		}
	})
}

// unreachableOnce re-attaches to nothing while the host is down (the
// first tries), then as the held engine does.
type unreachableOnce struct {
	*heldEngine
	mu   sync.Mutex
	down int // re-attaches still to fail
}

func (e *unreachableOnce) Reattach(ctx context.Context, spec engine.Spec, handle string, from uint64) (engine.Conn, error) {
	e.mu.Lock()
	down := e.down > 0
	e.down--
	e.mu.Unlock()
	if down {
		return nil, fmt.Errorf("reaching the holder of claude: ssh: connect: %w", host.ErrUnreachable)
	}
	return e.heldEngine.Reattach(ctx, spec, handle, from)
}

// unreachableAtStart starts a turn whose Claude is held and stuck until
// release is closed, stops the bot, and starts it again while the host
// does not answer (the first re-attach fails): the turn says so. A later
// turn answers second.
func unreachableAtStart(t *testing.T, second string) (h *harness, release chan struct{}) {
	release = make(chan struct{})
	var turns atomic.Int32
	h = newHarness(t, func(tr *enginetest.Turn) {
		tr.Start("m")
		if turns.Add(1) > 1 {
			tr.Complete(second)
			return
		}
		tr.Emit(engine.ActionStarted{ToolUseID: "tu1", Tool: "Bash", Kind: "command", Title: "make slow"})
		<-release // the bot stops and starts again meanwhile
		tr.Emit(engine.ActionCompleted{ToolUseID: "tu1", OK: true})
		tr.Complete("the first answer")
	})
	held := newHeldEngine(h.eng)
	h.engine = held
	synctest.Wait()
	h.stop()
	h.start()
	m := h.say("go")
	h.tg.AwaitMessage(wait, h.dm.ID, func(msg tgtest.Message) bool {
		return msg.ReplyTo == m && strings.Contains(msg.Text, "make slow")
	})
	h.stop()
	synctest.Wait()
	h.engine = &unreachableOnce{heldEngine: held, down: 1}
	h.start()
	synctest.Wait()
	h.awaitText(h.dm.ID, "could not be reached")
	return h, release
}

// A held Claude whose host did not answer when the bot started is picked
// up when the chat is next used and the host answers: the turn's answer
// arrives (once), and the new message runs after it in the same process,
// never in a second Claude resumed beside the one still running there.
func TestHeldUnreachableHostPickedUpLater(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, release := unreachableAtStart(t, "the second answer")
		close(release)
		synctest.Wait()
		h.say("and now?")
		h.awaitText(h.dm.ID, "the second answer")
		synctest.Wait()
		first := 0
		for _, text := range h.messages(h.dm.ID) {
			if strings.Contains(text, "the first answer") {
				first++
			}
		}
		if first != 1 {
			t.Errorf("the first answer came %d times:\n%s", first, strings.Join(h.messages(h.dm.ID), "\n---\n"))
		}
		if n := len(h.eng.starts()); n != 1 {
			t.Errorf("claude started %d times, want once (the held one, picked up)", n)
		}
		h.stop()
		_ = h.eng.session(0).Close(context.Background())
	})
}

// /new while a held Claude's host is still unreachable: the next message
// starts a new session, and the held one is not picked up later.
func TestHeldUnreachableThenNewSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, release := unreachableAtStart(t, "a fresh answer")
		h.say("/new")
		synctest.Wait()
		h.say("start over")
		h.awaitText(h.dm.ID, "a fresh answer")
		synctest.Wait()
		if n := len(h.eng.starts()); n != 2 {
			t.Errorf("claude started %d times, want twice (a new session after /new)", n)
		} else if spec := h.eng.starts()[1]; spec.Resume != "" {
			t.Errorf("the new session resumes %q", spec.Resume)
		}
		close(release)
		h.stop()
		_ = h.eng.session(0).Close(context.Background())
		_ = h.eng.session(1).Close(context.Background())
	})
}
