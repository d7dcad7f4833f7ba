package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/telegram/tgtest"
)

// Restart tests run the real binary against one fake Telegram and one state
// file across several starts, stopping it with SIGTERM or SIGKILL in
// between: the bot may only rely on what it wrote to the state file.

const restartWait = 30 * time.Second

// restartEnv is an e2eEnv whose fake Telegram can date messages in the
// past, for the backlog rule without sleeping through max_backlog_age.
type restartEnv struct {
	*e2eEnv
	skew atomic.Int64 // added to the fake Telegram's clock
}

func newRestartEnv(t *testing.T) *restartEnv {
	t.Helper()
	r := &restartEnv{}
	tg := tgtest.New(t, tgtest.WithClock(func() time.Time { return time.Now().Add(time.Duration(r.skew.Load())) }))
	r.e2eEnv = newE2EOn(t, tg, testExecutable(t), nil, "", "")
	return r
}

// startWith starts the bot with the fake CLI running script.
func (r *restartEnv) startWith(t *testing.T, script string) *botProcess {
	t.Helper()
	r.env = fakeClaudeEnv(script)
	return r.start(t)
}

// sendAgo sends a message dated d in the past.
func (r *restartEnv) sendAgo(d time.Duration, text string) int {
	r.skew.Store(int64(-d))
	defer r.skew.Store(0)
	return r.tg.SendMessage(r.user, r.chat, text)
}

func (r *restartEnv) say(text string) int { return r.tg.SendMessage(r.user, r.chat, text) }

// reply waits for a message of the bot answering msgID whose text contains want.
func (r *restartEnv) reply(msgID int, want string) tgtest.Message {
	return r.tg.AwaitMessage(restartWait, r.chat.ID, func(m tgtest.Message) bool {
		return m.ReplyTo == msgID && answerHas(m, want)
	})
}

// replies lists the bot's messages answering msgID.
func (r *restartEnv) replies(msgID int) []tgtest.Message {
	var out []tgtest.Message
	for _, m := range r.tg.Messages(r.chat.ID) {
		if m.ReplyTo == msgID {
			out = append(out, m)
		}
	}
	return out
}

// withText counts the bot's messages containing s.
func (r *restartEnv) withText(s string) int {
	n := 0
	for _, m := range r.tg.Messages(r.chat.ID) {
		if answerHas(m, s) {
			n++
		}
	}
	return n
}

// firstPollSince is the first getUpdates the bot made after since.
func (r *restartEnv) firstPollSince(t *testing.T, since time.Time) tgtest.Call {
	t.Helper()
	var first tgtest.Call
	r.tg.Await(restartWait, "a getUpdates after the restart", func() bool {
		for _, c := range r.tg.Calls() {
			if c.Method == "getUpdates" && !c.Time.Before(since) {
				first = c
				return true
			}
		}
		return false
	})
	return first
}

// accepted waits until the bot has handled the update carrying msgID: its
// next getUpdates confirms it.
func (r *restartEnv) accepted(t *testing.T, msgID int) {
	t.Helper()
	id := r.updateIDOf(t, msgID)
	r.tg.AwaitCall(restartWait, "getUpdates", func(c tgtest.Call) bool { return c.Int64("offset") > id })
}

// holdConfirmations makes every getUpdates that would confirm an update
// hang, so Telegram keeps redelivering what the bot received: what keeps
// the bot from running it again is then its own state file.
func (r *restartEnv) holdConfirmations() (stop func()) {
	return r.tg.FailWhen(func(c tgtest.Call) bool {
		return c.Method == "getUpdates" && c.Int64("offset") > 0
	}, tgtest.Failure{Hang: true})
}

func kill(t *testing.T, p *botProcess) {
	t.Helper()
	p.signal(syscall.SIGKILL)
	p.wait(restartWait) // "signal: killed" is the expected exit
}

func stop(t *testing.T, p *botProcess) {
	t.Helper()
	p.signal(syscall.SIGTERM)
	if err := p.wait(restartWait); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}

// openState opens the state file while no bot runs.
func (r *restartEnv) openState(t *testing.T) *prefs.Store {
	t.Helper()
	st, err := prefs.Open(t.Context(), filepath.Join(r.dir, "untether.db"), prefs.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// nothingLeft checks that a stopped bot left no queued prompt and no live
// message behind: everything was run, reported or marked.
func (r *restartEnv) nothingLeft(t *testing.T) {
	t.Helper()
	st := r.openState(t)
	pending, err := st.AllPendingPrompts()
	if err != nil || len(pending) != 0 {
		t.Errorf("prompts left queued: %+v %v", pending, err)
	}
	live, err := st.ListLive()
	if err != nil || len(live) != 0 {
		t.Errorf("live messages left: %+v %v", live, err)
	}
	st.Close()
}

// SIGKILL in the middle of a turn waiting for an approval, while Telegram
// still holds the unconfirmed update; messages arrive while the bot is down.
func TestRestartAfterKill(t *testing.T) {
	t.Parallel() // most of the time is Telegram pacing, one message a second per chat
	r := newRestartEnv(t)
	p := r.startWith(t, "approve")
	hold := r.holdConfirmations()
	m1 := r.say("doomed.txt")
	prompt := r.tg.AwaitMessage(restartWait, r.chat.ID, func(m tgtest.Message) bool {
		return answerHas(m, "touch doomed.txt") && hasButton(m, "Approve")
	})
	// The progress message is sent (saying it waits) just before the
	// prompt, and edited an edit interval after the prompt was recorded:
	// after that edit both are in the state file.
	progress := r.reply(m1, "waiting for approval")
	r.tg.Await(restartWait, "the progress message edited after the prompt", func() bool {
		m, _ := r.tg.Message(r.chat.ID, progress.ID)
		return m.Edits > 0
	})
	kill(t, p)
	hold()
	if r.tg.PendingUpdates() == 0 {
		t.Fatal("the fake Telegram should still hold the unconfirmed update")
	}

	m2 := r.say("while down")
	m3 := r.sendAgo(20*time.Minute, "from long ago")

	restarted := time.Now()
	p = r.startWith(t, "args")
	// Orphans of the killed run are marked, not left looking alive.
	r.tg.Await(restartWait, "orphans marked", func() bool {
		pg, _ := r.tg.Message(r.chat.ID, progress.ID)
		pr, _ := r.tg.Message(r.chat.ID, prompt.ID)
		return strings.Contains(pg.Text, "Interrupted by restart") && strings.Contains(pr.Text, "Expired") &&
			len(pg.Keyboard) == 0 && len(pr.Keyboard) == 0
	})
	// The message sent while down runs, resuming the killed session.
	final := r.reply(m2, `"args"`)
	if !strings.Contains(final.Text, `"--resume","fake-session-1"`) {
		t.Errorf("the session was not resumed: %s", final.Text)
	}
	// Too old to run: a note, not a run, and not silence.
	r.reply(m3, "Skipped: sent while I was offline, 20 minutes ago")

	poll := r.firstPollSince(t, restarted)
	if got, want := poll.Int64("offset"), r.updateIDOf(t, m1)+1; got != want {
		t.Errorf("first getUpdates after the restart has offset %d, want the stored %d", got, want)
	}
	// m1 ran exactly once: its only reply is the progress message of the
	// killed run (the prompt answers the progress message).
	if rs := r.replies(m1); len(rs) != 1 || rs[0].ID != progress.ID {
		t.Errorf("replies to the killed turn's message: %+v", rs)
	}
	if rs := r.replies(m3); len(rs) != 1 {
		t.Errorf("the stale message got %d replies, want only the note", len(rs))
	}
	stop(t, p)
	r.nothingLeft(t)
}

// updateIDOf waits for the fake Telegram to deliver a user message and
// returns the update id it gave it.
func (r *restartEnv) updateIDOf(t *testing.T, msgID int) int64 {
	t.Helper()
	var id int64
	r.tg.Await(restartWait, fmt.Sprintf("the delivery of message %d", msgID), func() bool {
		id = r.deliveredAs(msgID)
		return id != 0
	})
	return id
}

func (r *restartEnv) deliveredAs(msgID int) int64 {
	for _, c := range r.tg.CallsTo("getUpdates") {
		var body struct {
			Result []struct {
				UpdateID int64 `json:"update_id"`
				Message  struct {
					ID int `json:"message_id"`
				} `json:"message"`
			} `json:"result"`
		}
		if json.Unmarshal(c.Response, &body) != nil {
			continue
		}
		for _, u := range body.Result {
			if u.Message.ID == msgID {
				return u.UpdateID
			}
		}
	}
	return 0
}

// SIGTERM while a turn runs and another waits behind it: the running one
// is told it was interrupted, the queued one and one sent while the bot
// was down run after the start, in order; chat settings survive.
func TestRestartAfterSIGTERM(t *testing.T) {
	t.Parallel() // most of the time is Telegram pacing, one message a second per chat
	r := newRestartEnv(t)
	p := r.startWith(t, "slow")
	set := r.say("/planmode on")
	r.reply(set, "Plan mode: on (chat setting)")
	m1 := r.say("long job")
	r.tg.AwaitMessage(restartWait, r.chat.ID, func(m tgtest.Message) bool { return m.ReplyTo == m1 }) // running
	m2 := r.say("queued job")
	r.accepted(t, m2)
	stop(t, p)
	r.reply(m2, "Queued: it runs after the current turn")
	r.reply(m1, "The bot is stopping, so this turn was interrupted")

	m3 := r.say("sent while down")
	restarted := time.Now()
	p = r.startWith(t, "args")
	f2 := r.reply(m2, `"args"`)
	f3 := r.reply(m3, `"args"`)
	if f2.ID > f3.ID {
		t.Errorf("the message queued before the stop ran after the one sent while down")
	}
	for _, want := range []string{`"--resume","fake-session-1"`, `"--permission-mode","plan"`} {
		if !strings.Contains(f2.Text, want) {
			t.Errorf("first turn after the restart lacks %s: %s", want, f2.Text)
		}
	}
	status := r.say("/status")
	st := r.reply(status, "Status")
	if !strings.Contains(st.Text, "Plan mode: on (chat setting)") {
		t.Errorf("/status after the restart: %s", st.Text)
	}
	// The interrupted turn is not run again, and a graceful stop leaves no
	// orphan to mark.
	for _, m := range r.replies(m1) {
		if answerHas(m, `"args"`) || answerHas(m, "Interrupted by restart") {
			t.Errorf("after a graceful stop: %q", m.Text)
		}
	}
	poll := r.firstPollSince(t, restarted)
	if got, want := poll.Int64("offset"), r.updateIDOf(t, m2)+1; got != want {
		t.Errorf("first getUpdates after the restart has offset %d, want %d", got, want)
	}
	stop(t, p)
	r.nothingLeft(t)
}

// SIGKILL after a message was accepted but before its turn began (its
// file is still being fetched from Telegram; Claude gets the prompt at
// once otherwise): the message runs after the restart, once.
func TestRestartKillBeforeTurnBegins(t *testing.T) {
	t.Parallel()
	r := newRestartEnv(t)
	p := r.startWith(t, "echo")
	hang := r.tg.FailWhen(func(c tgtest.Call) bool { return c.Method == "getFile" }, tgtest.Failure{Hang: true})
	m1 := r.tg.SendDocument(r.user, r.chat, "notes.txt", "text/plain", []byte("hello"), "not lost")
	r.tg.AwaitCall(restartWait, "getFile", nil)
	kill(t, p)
	hang()

	p = r.startWith(t, "echo")
	r.reply(m1, "echo: not lost")
	if n := r.withText("echo: not lost"); n != 1 {
		t.Errorf("the message ran %d times", n)
	}
	stop(t, p)
	r.nothingLeft(t)
}

// SIGKILL while Claude works on a turn that has no progress message yet
// (Claude got the prompt at once; Telegram has not taken the progress
// message): after the restart a new message answers the user's, saying
// the turn was interrupted, and the turn does not run again.
func TestRestartKillBeforeProgressMessage(t *testing.T) {
	t.Parallel()
	r := newRestartEnv(t)
	p := r.startWith(t, "slow")
	hang := r.tg.FailWhen(func(c tgtest.Call) bool {
		return c.Method == "sendMessage" && strings.Contains(c.Param("reply_markup"), `"c:`)
	}, tgtest.Failure{Hang: true})
	m1 := r.say("long job")
	// Claude is writing: its words show in a draft.
	r.tg.AwaitCall(restartWait, "sendMessageDraft", func(c tgtest.Call) bool { return strings.Contains(c.Param("text"), "w0") })
	kill(t, p)
	hang()

	p = r.startWith(t, "args")
	notice := r.reply(m1, "Interrupted by restart")
	if len(notice.Keyboard) != 0 {
		t.Errorf("the notice has buttons: %+v", notice.Keyboard)
	}
	for _, m := range r.replies(m1) {
		if answerHas(m, `"args"`) {
			t.Errorf("the interrupted turn ran again: %q", m.Text)
		}
	}
	stop(t, p)
	r.nothingLeft(t)
}

// Telegram delivers again what the bot had handled (its confirmation never
// arrived and the stored offset lags, here rewound by hand): neither the
// message nor the command runs twice.
func TestRestartRedeliveredUpdatesRunOnce(t *testing.T) {
	t.Parallel() // most of the time is Telegram pacing, one message a second per chat
	r := newRestartEnv(t)
	// Both arrive in the first getUpdates; the one that would confirm them hangs.
	hold := r.holdConfirmations()
	m1 := r.say("only once")
	cmd := r.say("/verbose on")
	p := r.startWith(t, "echo")
	r.reply(m1, "echo: only once")
	r.reply(cmd, "Verbose progress: on (chat setting)")
	kill(t, p)
	hold()
	st := r.openState(t)
	if err := st.SetOffset(0); err != nil {
		t.Fatal(err)
	}
	st.Close()

	restarted := time.Now()
	p = r.startWith(t, "echo")
	m2 := r.say("after the redelivery")
	r.reply(m2, "echo: after the redelivery")
	poll := r.firstPollSince(t, restarted)
	if poll.Int64("offset") != 0 || !strings.Contains(string(poll.Response), fmt.Sprintf(`"update_id":%d`, r.updateIDOf(t, m1))) {
		t.Fatalf("the test did not redeliver: %s %s", poll.Param("offset"), poll.Response)
	}
	if n := r.withText("echo: only once"); n != 1 {
		t.Errorf("the message ran %d times", n)
	}
	if n := len(r.replies(cmd)); n != 1 {
		t.Errorf("the command answered %d times", n)
	}
	stop(t, p)
}

// The stored session cannot be resumed (the CLI no longer has it): one
// line tells the user, a fresh session answers, and it is the one kept.
func TestRestartResumeFailureFallsBack(t *testing.T) {
	t.Parallel() // most of the time is Telegram pacing, one message a second per chat
	r := newRestartEnv(t)
	p := r.startWith(t, "echo")
	m1 := r.say("first")
	r.reply(m1, "echo: first")
	stop(t, p)

	p = r.startWith(t, "noresume")
	m2 := r.say("second")
	r.reply(m2, "echo: second")
	r.reply(m2, "Couldn't resume the previous Claude session; starting a fresh one.")
	if n := r.withText("Couldn't resume"); n != 1 {
		t.Errorf("%d resume-failure notes", n)
	}
	stop(t, p)
	// The fresh session replaced the broken one: the next start resumes it.
	rec, ok, err := r.openState(t).Session(r.chatKey())
	if err != nil || !ok || rec.SessionID != "fake-session-fresh" {
		t.Errorf("stored session after the fallback: %+v %v %v", rec, ok, err)
	}
}

func (r *restartEnv) chatKey() string { return fmt.Sprint(r.chat.ID) }

// A second bot on the same state file stops at once and names the first;
// doctor says the same, and is all green once the first bot has stopped.
func TestRestartSecondInstanceRefused(t *testing.T) {
	t.Parallel() // most of the time is Telegram pacing, one message a second per chat
	r := newRestartEnv(t)
	p := r.startWith(t, "echo")
	r.tg.AwaitCall(restartWait, "setMyCommands", nil)
	pid := fmt.Sprintf("pid %d on ", p.cmd.Process.Pid)
	state := filepath.Join(r.dir, "untether.db")

	second := exec.Command(untetherBinary(t), "run", "--config", r.config)
	second.Env = r.env
	began := time.Now()
	out, err := second.CombinedOutput()
	if err == nil || !strings.Contains(string(out), state) || !strings.Contains(string(out), pid) {
		t.Errorf("second instance: %v\n%s", err, out)
	}
	// A second that waited for the first would never give up; this one
	// gives up after the lock's second, plus a race-built binary's start,
	// which a loaded machine makes slow: a minute is no speed goal.
	if took := time.Since(began); took > time.Minute {
		t.Errorf("the second instance took %v to give up", took)
	}
	// It left the first one undisturbed.
	m := r.say("still here")
	r.reply(m, "echo: still here")

	doctor := func() (string, error) {
		cmd := exec.Command(untetherBinary(t), "doctor", "--config", r.config)
		cmd.Env = r.env
		out, err := cmd.Output()
		return string(out), err
	}
	out2, err := doctor()
	if err == nil || !strings.Contains(out2, "✗ state file: ") || !strings.Contains(out2, pid) || strings.Count(out2, "✗") != 1 {
		t.Errorf("doctor while the bot runs: %v\n%s", err, out2)
	}
	stop(t, p)
	out2, err = doctor()
	if err != nil || !strings.Contains(out2, "version 0.0.0-fake (Claude Code)") || strings.Contains(out2, "✗") {
		t.Errorf("doctor after the stop: %v\n%s", err, out2)
	}
	if strings.Contains(out2, r.tg.Token()) {
		t.Error("doctor printed the token")
	}
}

// The real CLI: after a SIGKILL the next message resumes the conversation,
// which reaches the model whole.
func TestContractRestartResumesConversation(t *testing.T) {
	e, api := realClaude(t, claudetest.Say("Noted: the code word is kiwi."), claudetest.Say("It was kiwi."))
	p := e.start(t)
	m1 := e.tg.SendMessage(e.user, e.chat, "Remember the code word kiwi.")
	e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool {
		return m.ReplyTo == m1 && answerHas(m, "Noted: the code word is kiwi.")
	})
	kill(t, p)
	e.start(t)
	m2 := e.tg.SendMessage(e.user, e.chat, "What was the code word?")
	e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool {
		return m.ReplyTo == m2 && answerHas(m, "It was kiwi.")
	})
	reqs := api.Requests()
	last := reqs[len(reqs)-1]
	all := last.AllText()
	for _, want := range []string{"Remember the code word kiwi.", "Noted: the code word is kiwi.", "What was the code word?"} {
		if !strings.Contains(all, want) {
			t.Errorf("the resumed request lacks %q", want)
		}
	}
}
