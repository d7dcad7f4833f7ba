package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/codex"
	"github.com/untether/untether/codex/codextest"
	"github.com/untether/untether/engine"
)

// deskThread runs one prompt in a Codex thread of its own in dir, as Codex
// run by the owner elsewhere would (the same CODEX_HOME), and dates its
// file a minute back (not open in a terminal now). It returns the thread.
func deskThread(t *testing.T, env []string, dir, prompt string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	eng := &codex.Engine{Base: codex.Options{Binary: codextest.Binary(t), WorkDir: dir, Env: env}}
	c, err := eng.Start(context.Background(), engine.Spec{})
	if err != nil {
		t.Fatalf("codex at the desk: %v", err)
	}
	defer c.Close(context.Background())
	if err := c.Send(context.Background(), prompt); err != nil {
		t.Fatalf("send at the desk: %v", err)
	}
	timeout := time.After(e2eWait)
	for done := false; !done; {
		select {
		case ev := <-c.Events():
			_, done = ev.(engine.TurnCompleted)
		case <-timeout:
			t.Fatal("the desk turn did not complete")
		}
	}
	id := c.SessionID()
	home := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "CODEX_HOME="); ok {
			home = v
		}
	}
	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl"))
	if len(files) != 1 {
		t.Fatalf("thread %s's file: %v", id, files)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(files[0], old, old); err != nil {
		t.Fatal(err)
	}
	return id
}

// /sessions on a Codex chat lists Codex's own threads of the chat's
// directory (not another project's); a tap resumes the thread, so the
// model gets its history with the next prompt; /status gives the desk
// command for it.
func TestCodexBotSessionsFromCodexsStore(t *testing.T) {
	e, api, _ := realCodex(t, nil, true, "")
	work := filepath.Join(e.dir, "work")
	id := deskThread(t, e.env, work, "first prompt at the desk")
	deskThread(t, e.env, filepath.Join(e.dir, "other"), "a prompt in another project")

	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "/sessions")
	msg := e.awaitNew(0, "Codex's sessions")
	if !strings.Contains(msg.Text, "1. first prompt at the desk · 1 turn · 1 minute ago · 🖥 not from this chat") ||
		strings.Contains(msg.Text, "another project") {
		t.Errorf("/sessions:\n%s", msg.Text)
	}
	cq := e.tg.PressButton(e.user, e.chat, msg.ID, buttonData(t, msg, "first prompt at the desk"))
	e.tg.Await(60*time.Second, "the press's answer", func() bool { _, ok := e.tg.CallbackAnswer(cq); return ok })

	asked := len(api.Requests())
	e.tg.SendMessage(e.user, e.chat, "and now from the phone")
	final := e.awaitNew(msg.ID, "echo: and now from the phone")
	reqs := api.Requests()
	if len(reqs) != asked+1 || !reqs[len(reqs)-1].Carries("first prompt at the desk") {
		t.Errorf("the resumed turn does not carry the desk thread (%d requests before, %d after)", asked, len(reqs))
	}
	e.tg.SendMessage(e.user, e.chat, "/status")
	status := e.awaitNew(final.ID, "Status")
	if !strings.Contains(status.Text, "codex resume") || !strings.Contains(status.Text, id) {
		t.Errorf("/status lacks the desk command for %s:\n%s", id, status.Text)
	}
}
