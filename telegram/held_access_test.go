package telegram_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// A held Claude is checked when a restarted bot finds it as a new turn
// would be (issue 30, items 3 and 4): its chat and the user of its turn
// must still be allowed, and its directory must pass the check a session
// start makes. One that fails is ended (its holder tells Claude to stop),
// never carried on.

// heldPending starts the bot again with a held engine, runs "go" in chat
// up to the approval prompt of command, and stops the bot: the held Claude
// waits for that approval. opts are the bot's config meanwhile.
func heldPending(h *harness, chat tgtest.Chat, prefix, command string, opts ...harnessOpt) tgtest.Message {
	h.t.Helper()
	h.engine = newHeldEngine(h.eng)
	synctest.Wait()
	h.stop()
	h.start(opts...)
	h.tg.SendMessage(h.user, chat, prefix+"go")
	prompt := h.awaitPrompt(chat.ID, "Approve", command)
	h.stop()
	synctest.Wait()
	return prompt
}

// heldEnded checks that the held Claude was told to stop and is forgotten,
// that the old prompt's Approve, pressed in chat, is refused with toast and
// runs nothing, and that the owner was told in the log (a warning naming
// the chat).
func heldEnded(t *testing.T, h *harness, chat tgtest.Chat, prompt tgtest.Message, toast string) {
	t.Helper()
	h.awaitResolved(chat.ID, prompt.ID, "Expired")
	data, _ := findButton(prompt, "Approve")
	if got := h.toast(h.tg.SendCallbackQuery(h.user, chat, prompt.ID, data)); got != toast {
		t.Errorf("the old prompt's Approve: toast %q, want %q", got, toast)
	}
	synctest.Wait()
	if a := h.answersOf(0); len(a) != 0 {
		t.Errorf("the held Claude was answered %+v: the tool ran", a)
	}
	select {
	case <-h.eng.session(0).Done():
	default:
		t.Error("the held Claude still runs")
	}
	if held, err := h.store.ListHeld(); err != nil || len(held) != 0 {
		t.Errorf("held after the restart: %+v %v", held, err)
	}
	chatKey := "chat_id=" + strconv.FormatInt(chat.ID, 10)
	if lines := h.logs.lines("level=WARN", chatKey, "held claude"); len(lines) == 0 {
		t.Errorf("no warning about the held Claude of %s in the log", chatKey)
	}
}

// The owner removes a group from allowed_chat_ids and restarts while a held
// turn there waits for approval: the turn is ended (its Claude told to
// stop), its progress message says why, and the old Approve pressed in
// that group is refused as any press there is, running nothing.
func TestHeldTurnOfRemovedGroupEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := tgtest.Supergroup(-100555, "team")
		inTeam := func(c *telegram.Config) { c.AllowedChats = []int64{g.ID} }
		h := newHarness(t, oneAsk(toolReq(t, "rg", "Bash", map[string]any{"command": "make deploy"})), inTeam)
		h.tg.AddChat(g)
		defer func() { h.stop(); _ = h.eng.session(0).Close(context.Background()) }()
		prompt := heldPending(h, g, "@"+h.tg.Bot().Username+" ", "make deploy", inTeam)

		h.start(func(c *telegram.Config) { c.AllowedChats = []int64{-100999} })
		h.awaitText(g.ID, "this chat is no longer allowed")
		heldEnded(t, h, g, prompt, "You are not allowed to answer this")
	})
}

// The same for the user who started the turn, removed from
// allowed_user_ids: the turn is ended, never carried on for them.
func TestHeldTurnOfRemovedUserEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, oneAsk(toolReq(t, "ru", "Bash", map[string]any{"command": "make release"})))
		defer func() { h.stop(); _ = h.eng.session(0).Close(context.Background()) }()
		prompt := heldPending(h, h.dm, "", "make release")

		h.start(func(c *telegram.Config) { c.AllowedUsers = []int64{777} })
		h.awaitText(h.dm.ID, "you are no longer allowed")
		heldEnded(t, h, h.dm, prompt, "You are not allowed to answer this")
	})
}

// askOnGo asks to run command for the prompt "go" and answers any other
// with "Answer: " and the prompt.
func askOnGo(t *testing.T, command string) enginetest.Script {
	ask := oneAsk(toolReq(t, "dir", "Bash", map[string]any{"command": command}))
	return func(tr *enginetest.Turn) {
		if tr.Prompt == "go" {
			ask(tr)
			return
		}
		tr.Start("m")
		tr.Complete("Answer: " + tr.Prompt)
	}
}

// After a restart with narrower project_roots, a held Claude working in
// the chat's old directory is ended as a session start would refuse it:
// the chat gets the fallback notice a start gives, the turn's prompt
// expires and its Approve runs nothing, its send_file grant is not given
// back, and the next message starts a fresh session in working_dir, with a
// grant for that directory.
func TestHeldOutsideNarrowedRootsEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, api, web, _ := projects(t)
		files := newFakeFiles(t)
		inRoot := func(c *telegram.Config) { c.WorkDir, c.Files = root, files }
		h := newHarness(t, askOnGo(t, "make api"), inRoot)
		h.say("/cwd api")
		h.awaitText(h.dm.ID, "Working directory: "+api)
		defer func() { // held, the sessions outlive the bot: end them with the test
			h.stop()
			for i := range h.eng.starts() {
				_ = h.eng.session(i).Close(context.Background())
			}
		}()
		prompt := heldPending(h, h.dm, "", "make api", inRoot)

		next := newFakeFiles(t)
		h.start(func(c *telegram.Config) { c.WorkDir, c.ProjectRoots, c.Files = root, []string{web}, next })
		note := h.awaitText(h.dm.ID, fellBackNarrowed(api))
		if !strings.Contains(note.Text, "back in the default directory "+root) {
			t.Errorf("notice = %q", note.Text)
		}
		heldEnded(t, h, h.dm, prompt, "This request is no longer pending")
		next.mu.Lock()
		restored := len(next.restored)
		next.mu.Unlock()
		if restored != 0 {
			t.Errorf("the ended process's send_file grant was given back: %v", next.restored)
		}

		h.say("two")
		h.awaitText(h.dm.ID, "Answer: two")
		runsIn(t, h, root)
		next.mu.Lock()
		defer next.mu.Unlock()
		if n := len(next.sessions); n != 1 || next.sessions[0].Rule.WorkDir != root {
			t.Errorf("send_file grants after the restart: %+v, want one for %s", next.sessions, root)
		}
	})
}

// A live process is checked before it is reused as a start checks the
// chat's directory: after the directory became a link out of the roots,
// the next message gets the fallback notice and runs in a fresh session in
// working_dir, not in the process still working in the old directory.
func TestLiveProcessDirReplacedByLinkFallsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, api, _, outside := projects(t)
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = root })
		h.say("/cwd api")
		h.awaitText(h.dm.ID, "Working directory: "+api)
		h.say("one")
		h.awaitText(h.dm.ID, "Answer: one")
		runsIn(t, h, api)

		leadsOutside(t, api, outside)
		h.say("two")
		h.awaitText(h.dm.ID, fellBackOutside(api, outside))
		h.awaitText(h.dm.ID, "Answer: two")
		runsIn(t, h, root)
		select {
		case <-h.eng.session(0).Done():
		default:
			t.Error("the process in the old directory still runs")
		}
	})
}
