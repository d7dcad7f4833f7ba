package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/runner/claudetest"
)

// heldOnHost is a bot whose chat runs a durable Claude on an SSH host
// ("box": the distribution's sshd on 127.0.0.1, the pinned CLI there),
// answering slowly; whatever it leaves held is ended after the bot stops.
func heldOnHost(t *testing.T) (*restartEnv, *claudetest.API, []string) {
	t.Helper()
	answer := "Counted: " + strings.Repeat("lorem ipsum dolor sit amet ", 12) + "the end."
	e, api, s, _ := claudeOnHostWith(t, "durable = true\ndurable_wait = \"1m\"\n", claudetest.Say(answer).Slow(60*time.Millisecond))
	t.Cleanup(func() { endHeld(t, filepath.Join(e.dir, "untether.db")) }) // runs after the bot's own
	cfg, err := LoadConfig(e.config)
	if err != nil {
		t.Fatal(err)
	}
	// `ssh -O exit` for the bot's multiplexed connection to the host.
	exit := append(append([]string{"-O", "exit", "-o", "ControlPath=" + sshControlDir(cfg, "box") + "/%C"}, s.Args...), "--", s.Dest)
	return &restartEnv{e2eEnv: e}, api, exit
}

// The bot's ssh connection dies mid-answer (its master is told to exit, as
// when the network drops): the bot reaches the holder there again and the
// answer arrives once; the model got the prompt once.
func TestDurableOnHostConnectionDrops(t *testing.T) {
	r, api, exit := heldOnHost(t)
	p := r.start(t)
	defer stop(t, p)
	m := r.say("Count slowly.")
	r.awaitDraft("lorem")
	if out, err := exec.Command("ssh", exit...).CombinedOutput(); err != nil {
		t.Fatalf("ending the bot's ssh master: %v: %s", err, out)
	}
	if n := r.withText("the end."); n != 0 {
		t.Fatalf("the answer came before the drop (%d); the test needs a slower answer", n)
	}
	r.answeredOnce(t, api, m, "the end.")
	if !strings.Contains(p.out.String(), "reached claude's holder again") {
		t.Errorf("the bot's log does not say it reached the holder again")
	}
}

// The bot is killed (SIGKILL) while its Claude on an SSH host writes the
// answer: the bot started next attaches to the holder there through a new
// bridge, and the answer arrives once; the model got the prompt once.
func TestDurableOnHostKillMidAnswer(t *testing.T) {
	r, api, _ := heldOnHost(t)
	p := r.start(t)
	m := r.say("Count slowly.")
	r.awaitDraft("lorem")
	kill(t, p)
	if n := r.withText("the end."); n != 0 {
		t.Fatalf("the answer came before the kill (%d); the test needs a slower answer", n)
	}
	p = r.start(t)
	defer stop(t, p)
	r.answeredOnce(t, api, m, "the end.")
}
