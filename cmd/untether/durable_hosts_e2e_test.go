package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/filesend"
	sshhost "github.com/untether/untether/host/ssh"
	"github.com/untether/untether/runner/claudetest"
)

// heldOnHost is a bot whose chat runs a durable Claude on an SSH host
// ("box": the distribution's sshd on 127.0.0.1, the pinned CLI there),
// answering slowly, then more; whatever it leaves held is ended after the
// bot stops. It returns what ends the bot's multiplexed connection to the
// host (its master, as host/ssh's Close does on the bot's control socket),
// and the working folder there.
func heldOnHost(t *testing.T, more ...claudetest.Step) (*restartEnv, *claudetest.API, func() error, string) {
	t.Helper()
	answer := "Counted: " + strings.Repeat("lorem ipsum dolor sit amet ", 12) + "the end."
	steps := append([]claudetest.Step{claudetest.Say(answer).Slow(60 * time.Millisecond)}, more...)
	e, api, s, work := claudeOnHostWith(t, "durable = true\ndurable_wait = \"1m\"\n", steps...)
	t.Cleanup(func() { endHeld(t, filepath.Join(e.dir, "untether.db")) }) // runs after the bot's own
	cfg, err := LoadConfig(e.config)
	if err != nil {
		t.Fatal(err)
	}
	bots, err := sshhost.New(sshhost.Options{Name: "box", Dest: s.Dest, Args: s.Args, ControlDir: sshControlDir(cfg, "box"),
		Agent: untetherBinary(t)})
	if err != nil {
		t.Fatal(err)
	}
	return &restartEnv{e2eEnv: e}, api, bots.Close, work
}

// The bot's ssh connection dies mid-answer (its master is told to exit, as
// when the network drops): the bot reaches the holder there again and the
// answer arrives once; the model got the prompt once. Then Claude sends a
// file: the send_file socket was forwarded again over the new connection.
func TestDurableOnHostConnectionDrops(t *testing.T) {
	tool := "mcp__" + filesend.ServerName + "__" + filesend.ToolName
	r, api, exit, work := heldOnHost(t, claudetest.Answer(claudetest.ToolUse(tool, map[string]any{"path": "report.txt"})),
		claudetest.Say("Sent."))
	if err := os.WriteFile(filepath.Join(work, "report.txt"), []byte("the report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := r.start(t)
	defer stop(t, p)
	m := r.say("Count slowly.")
	r.awaitDraft("lorem")
	if err := exit(); err != nil {
		t.Fatalf("ending the bot's ssh master: %v", err)
	}
	if n := r.withText("the end."); n != 0 {
		t.Fatalf("the answer came before the drop (%d); the test needs a slower answer", n)
	}
	r.answeredOnce(t, api, m, "the end.")
	if !strings.Contains(p.out.String(), "reached claude's holder again") {
		t.Errorf("the bot's log does not say it reached the holder again")
	}
	r.reply(r.say("Send the report."), "Sent.")
	if docs := r.tg.Documents(r.chat.ID); len(docs) != 1 || docs[0].Document.FileName != "report.txt" {
		t.Errorf("documents %+v, want report.txt sent after the drop", docs)
	}
}

// The bot is killed (SIGKILL) while its Claude on an SSH host writes the
// answer: the bot started next attaches to the holder there through a new
// bridge, and the answer arrives once; the model got the prompt once.
func TestDurableOnHostKillMidAnswer(t *testing.T) {
	r, api, _, _ := heldOnHost(t)
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

// A held Claude on an SSH host sends a file after the bot restarted (and
// its ssh connection, with the forwarded socket, was made anew): its MCP
// server names the link the new bot points at its own forward, and the
// new bot gave its grant back, so the file reaches the chat.
func TestDurableOnHostSendFileAfterRestart(t *testing.T) {
	tool := "mcp__" + filesend.ServerName + "__" + filesend.ToolName
	e, _, _, work := claudeOnHostWith(t, "durable = true\ndurable_wait = \"1m\"\n",
		claudetest.Say("Ready."),
		claudetest.Answer(claudetest.ToolUse(tool, map[string]any{"path": "report.txt"})),
		claudetest.Say("Sent."))
	t.Cleanup(func() { endHeld(t, filepath.Join(e.dir, "untether.db")) })
	if err := os.WriteFile(filepath.Join(work, "report.txt"), []byte("the report\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &restartEnv{e2eEnv: e}
	p := r.start(t)
	r.reply(r.say("Get ready."), "Ready.")
	stop(t, p) // the held Claude stays; the bot's connection ends
	if hs := r.heldHandles(t); len(hs) != 1 {
		t.Fatalf("want one held Claude after the stop: %+v", hs)
	}
	p = r.start(t)
	defer stop(t, p)
	r.reply(r.say("Send the report."), "Sent.")
	docs := r.tg.Documents(r.chat.ID)
	if len(docs) != 1 || docs[0].Document.FileName != "report.txt" {
		t.Errorf("documents %+v, want report.txt", docs)
	}
	if d, _ := r.tg.FileData(docs[0].FileID()); string(d) != "the report\n" {
		t.Errorf("the file sent holds %q", d)
	}
}
