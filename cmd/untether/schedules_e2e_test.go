package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/telegram/tgtest"
	"github.com/untether/untether/triggers"
)

// /at survives a restart: the schedule is in the state file, and the run
// that fell due while the bot was down runs once when it is back.
func TestAtFiresAcrossRestart(t *testing.T) {
	t.Parallel()
	r := newRestartEnv(t)
	p := r.startWith(t, "echo")
	m := r.say("/at 3s scheduled-ping")
	r.reply(m, "Scheduled for")
	stop(t, p)
	time.Sleep(4 * time.Second) // due while the bot is down

	p = r.startWith(t, "echo")
	origin := r.tg.AwaitMessage(restartWait, r.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "⏰ Once") })
	if !strings.Contains(origin.Text, "scheduled-ping") {
		t.Errorf("first message = %q", origin.Text)
	}
	r.reply(origin.ID, "echo: scheduled-ping")
	stop(t, p)
	if n := r.withText("echo: scheduled-ping"); n != 1 {
		t.Errorf("the run was answered %d times, want once", n)
	}
	st := r.openState(t)
	if all, err := st.Schedules(); err != nil || len(all) != 0 {
		t.Errorf("schedules left after a one-off ran: %+v %v", all, err)
	}
	st.Close()
	r.nothingLeft(t)
}

// A trigger configured in the file starts a run over real HTTP; a wrong
// signature gets 401 and runs nothing.
func TestTriggerEndToEnd(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // the bot listens there; a race with another process is unlikely on loopback
	user := tgtest.User{ID: 5150}
	extra := fmt.Sprintf("[triggers]\nlisten = %q\n\n[triggers.ci]\nchat = %d\nsecret_env = \"CI_HOOK_SECRET\"\n"+
		"prompt = \"CI reported this; find the cause:\\n{{body}}\"\n", addr, user.ID)
	tg := tgtest.New(t)
	tg.AddChat(tgtest.PrivateChat(user))
	e := newE2EOn(t, tg, testExecutable(t), nil, "", extra)
	secret := "a-long-enough-ci-secret"
	e.env = append(fakeClaudeEnv("echo"), "CI_HOOK_SECRET="+secret)
	p := e.start(t)
	defer func() {
		p.signal(syscall.SIGTERM)
		_ = p.wait(restartWait)
	}()
	body := []byte(`{"build": 17, "status": "failed"}`)
	post := func(sig string) int {
		var code int
		deadline := time.Now().Add(restartWait)
		for time.Now().Before(deadline) { // the bot may still be starting
			req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/hooks/ci", bytes.NewReader(body))
			req.Header.Set("X-Hub-Signature-256", sig)
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
				if code = resp.StatusCode; code != http.StatusInternalServerError {
					return code
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		return code
	}
	if code := post("sha256=00"); code != http.StatusUnauthorized {
		t.Fatalf("bad signature: %d, want 401", code)
	}
	if code := post(triggers.Sign([]byte(secret), body)); code != http.StatusAccepted {
		t.Fatalf("signed: %d, want 202", code)
	}
	for i := range 3 { // the same request again: a replay runs nothing
		if code := post(triggers.Sign([]byte(secret), body)); code != http.StatusOK {
			t.Errorf("repeat %d: %d, want 200 (duplicate)", i, code)
		}
	}
	origin := tg.AwaitMessage(restartWait, user.ID, func(m tgtest.Message) bool { return answerHas(m, "🪝 ci") })
	if !strings.Contains(origin.Text, `"status": "failed"`) {
		t.Errorf("first message = %q", origin.Text)
	}
	answer := tg.AwaitMessage(restartWait, user.ID, func(m tgtest.Message) bool { return answerHas(m, "echo: CI reported this") })
	if !strings.Contains(answer.Text, "untrusted") || strings.Contains(answer.Text, secret) {
		t.Errorf("answer = %q", answer.Text)
	}
	if n := len(tg.Messages(user.ID)); n > 4 {
		t.Errorf("%d messages: the unsigned request or a repeat ran too?", n)
	}
}

// The trigger address taken by another program: the bot does not start
// (else that program would receive the deliveries), and says which address.
func TestTriggerListenTaken(t *testing.T) {
	t.Parallel()
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	addr := held.Addr().String()
	user := tgtest.User{ID: 5150}
	extra := fmt.Sprintf("[triggers]\nlisten = %q\n\n[triggers.ci]\nchat = %d\nsecret_env = \"CI_HOOK_SECRET\"\n"+
		"prompt = \"CI reported this:\\n{{body}}\"\n", addr, user.ID)
	e := newE2EOn(t, tgtest.New(t), testExecutable(t), nil, "", extra)
	e.env = append(fakeClaudeEnv("echo"), "CI_HOOK_SECRET=a-long-enough-ci-secret")
	p := e.start(t)
	err = p.wait(restartWait)
	if err == nil || !strings.Contains(p.out.String(), addr) || !strings.Contains(p.out.String(), "listen") {
		t.Fatalf("exit %v, want an error naming %s:\n%s", err, addr, p.out.String())
	}
}
