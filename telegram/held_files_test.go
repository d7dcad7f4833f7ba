package telegram_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/host"
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
		"another version of untether")
}

// A held Claude on a host that does not answer when the bot starts may
// still run there: the turn says the host could not be reached, never
// that Claude crashed.
func TestHeldUnreachableHostIsReported(t *testing.T) {
	heldFailureIsReported(t, fmt.Errorf("reaching the holder of claude: ssh: connect: %w", host.ErrUnreachable),
		"could not be reached")
}

// heldFailureIsReported stops the bot while Claude waits for an approval,
// starts it again with re-attaches failing with err, and checks that the
// turn's messages say want (the approval prompt expired), never that
// Claude's process ended.
func heldFailureIsReported(t *testing.T, err error, want string) {
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
		if held, err := h.store.ListHeld(); err != nil || len(held) != 0 {
			t.Errorf("held after the restart: %+v %v", held, err)
		}
	})
}
