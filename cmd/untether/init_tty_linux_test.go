package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// From a terminal the token is read with echo off: what the user pastes
// never shows on the screen (nor in the output).
func TestInitReadsTheTokenWithoutEcho(t *testing.T) {
	e := newInitEnv(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- cmdInit(context.Background(), []string{"--config", e.config, "--api-url", e.tg.URL(),
			"--user-id", "5150", "--dir", e.work, "--claude", e.claude}, tty, out)
	}()
	// The token may only be typed once echo is off, as a person would
	// after the prompt: the terminal echoes input when it arrives.
	echoOff := func() bool {
		st, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		return err == nil && st.Lflag&unix.ECHO == 0
	}
	for deadline := time.Now().Add(initWait); !echoOff(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("echo never went off:\n%s", out)
		}
	}
	if _, err := ptmx.Write([]byte(e.tg.Token() + "\n")); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, done, out); err != nil {
		t.Fatalf("init: %v", err)
	}
	// Echo is back on: a marker shows, and nothing before it is the token.
	if _, err := ptmx.Write([]byte("MARK\n")); err != nil {
		t.Fatal(err)
	}
	screen := make(chan string, 1)
	go func() {
		var b bytes.Buffer
		buf := make([]byte, 256)
		for !strings.Contains(b.String(), "MARK") {
			n, err := ptmx.Read(buf)
			if err != nil {
				break
			}
			b.Write(buf[:n])
		}
		screen <- b.String()
	}()
	select {
	case s := <-screen:
		if strings.Contains(s, e.tg.Token()) || strings.Contains(out.String(), e.tg.Token()) {
			t.Errorf("the token was shown: %q", s)
		}
	case <-time.After(initWait):
		t.Fatal("echo did not come back on")
	}
	e.checkConfig(t)
}
