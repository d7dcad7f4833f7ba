package telegram_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
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
