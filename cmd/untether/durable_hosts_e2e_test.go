package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/runner/claudetest"
)

// A held Claude on an SSH host, end to end: the real binary, the fake Bot
// API, the distribution's sshd on 127.0.0.1 and the pinned CLI there. The
// bot's ssh connection dies mid-answer (its master is told to exit, as
// when the network drops): the bot reaches the holder there again and the
// answer arrives once; the model got the prompt once.
func TestDurableOnHostConnectionDrops(t *testing.T) {
	words := strings.Repeat("lorem ipsum dolor sit amet ", 12)
	answer := "Counted: " + words + "the end."
	e, api, s, _ := claudeOnHostWith(t, "durable = true\ndurable_wait = \"1m\"\n", claudetest.Say(answer).Slow(60*time.Millisecond))
	r := &restartEnv{e2eEnv: e}
	t.Cleanup(func() { endHeld(t, filepath.Join(e.dir, "untether.db")) }) // after the bot stopped
	cfg, err := LoadConfig(e.config)
	if err != nil {
		t.Fatal(err)
	}
	ctl := sshControlDir(cfg, "box")
	p := r.start(t)
	defer stop(t, p)
	m := r.say("Count slowly.")
	r.tg.Await(durableWait, "a draft of the answer", func() bool {
		for _, d := range r.tg.Drafts(r.chat.ID) {
			if strings.Contains(d.Text, "lorem") {
				return true
			}
		}
		return false
	})
	exit := exec.Command("ssh", append(append([]string{"-O", "exit", "-o", "ControlPath=" + ctl + "/%C"}, s.Args...), "--", s.Dest)...)
	if out, err := exit.CombinedOutput(); err != nil {
		t.Fatalf("ending the bot's ssh master: %v: %s", err, out)
	}
	if n := r.withText("the end."); n != 0 {
		t.Fatalf("the answer came before the drop (%d); the test needs a slower answer", n)
	}
	r.reply(m, "the end.")
	time.Sleep(2 * time.Second) // anything sent twice would come now
	if n := r.withText("the end."); n != 1 {
		t.Errorf("the answer arrived %d times, want once", n)
	}
	if n := len(api.Requests()); n != 1 {
		t.Errorf("the model got %d requests, want 1", n)
	}
	for _, msg := range r.replies(m) {
		if strings.Contains(msg.Text, "Interrupted") || strings.Contains(msg.Text, "ended") {
			t.Errorf("the turn was reported interrupted: %q", msg.Text)
		}
	}
	if !strings.Contains(p.out.String(), "reached claude's holder again") {
		t.Errorf("the bot's log does not say it reached the holder again")
	}
}

// The bot is killed (SIGKILL) while its Claude on an SSH host writes the
// answer: the bot started next attaches to the holder there through a new
// bridge, and the answer arrives once; the model got the prompt once.
func TestDurableOnHostKillMidAnswer(t *testing.T) {
	words := strings.Repeat("lorem ipsum dolor sit amet ", 12)
	answer := "Counted: " + words + "the end."
	e, api, _, _ := claudeOnHostWith(t, "durable = true\ndurable_wait = \"1m\"\n", claudetest.Say(answer).Slow(60*time.Millisecond))
	r := &restartEnv{e2eEnv: e}
	t.Cleanup(func() { endHeld(t, filepath.Join(e.dir, "untether.db")) })
	p := r.start(t)
	m := r.say("Count slowly.")
	r.tg.Await(durableWait, "a draft of the answer", func() bool {
		for _, d := range r.tg.Drafts(r.chat.ID) {
			if strings.Contains(d.Text, "lorem") {
				return true
			}
		}
		return false
	})
	kill(t, p)
	if n := r.withText("the end."); n != 0 {
		t.Fatalf("the answer came before the kill (%d); the test needs a slower answer", n)
	}
	p = r.start(t)
	defer stop(t, p)
	r.reply(m, "the end.")
	time.Sleep(2 * time.Second) // anything sent twice would come now
	if n := r.withText("the end."); n != 1 {
		t.Errorf("the answer arrived %d times, want once", n)
	}
	if n := len(api.Requests()); n != 1 {
		t.Errorf("the model got %d requests, want 1", n)
	}
	for _, msg := range r.replies(m) {
		if strings.Contains(msg.Text, "Interrupted") {
			t.Errorf("the turn was reported interrupted: %q", msg.Text)
		}
	}
}
