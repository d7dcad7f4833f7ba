package runner

import (
	"context"
	"encoding/json"
	"syscall"
	"testing"

	"github.com/untether/untether/hold"
)

// A held Claude keeps the flags it was started with for its life: a bot
// that re-attaches to it under a config asking for more safety (an owner
// who set [claude] project_settings back to false because of a suspicious
// repository, an upgrade that brought --ignore-persisted-trust) must learn
// that it runs less safe than asked, so that it serves no new turn. A
// handle without the record was written by a bot before it: nothing says
// how its process was started, so it counts as less safe.
func TestReattachTellsAProcessStartedLessSafe(t *testing.T) {
	old := func(handle string) string { // a handle as a bot before the record wrote it
		var h hold.Handle
		if err := json.Unmarshal([]byte(handle), &h); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(h)
		return string(b)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name         string
		started, now func(*Options)
		handle       func(string) string
		wantLessSafe bool
	}{
		{name: "project settings trusted, now not", started: func(o *Options) { o.ProjectSettings = true }, wantLessSafe: true},
		{name: "project settings untrusted, as now"},
		{name: "untrusted, now trusted", now: func(o *Options) { o.ProjectSettings = true }},
		{name: "trusted, as now", started: func(o *Options) { o.ProjectSettings = true }, now: func(o *Options) { o.ProjectSettings = true }},
		{name: "no record (an older bot)", handle: old, wantLessSafe: true},
		{name: "skip permissions, now not", started: func(o *Options) { o.SkipPermissions = true }, wantLessSafe: true},
		{name: "a tool allowed, now not", started: func(o *Options) { o.AllowedTools = []string{"Bash", "Read"} },
			now: func(o *Options) { o.AllowedTools = []string{"Read"} }, wantLessSafe: true},
		{name: "fewer tools allowed than now", started: func(o *Options) { o.AllowedTools = []string{"Read"} },
			now: func(o *Options) { o.AllowedTools = []string{"Read", "Bash"} }},
		{name: "a directory added, now not", started: func(o *Options) { o.AddDirs = []string{dir} }, wantLessSafe: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := fakeOpts(t, "echo")
			opts.Hold = testHold(t)
			started, now := opts, opts
			if c.started != nil {
				c.started(&started)
			}
			if c.now != nil {
				c.now(&now)
			}
			s, err := Start(context.Background(), started)
			if err != nil {
				t.Fatal(err)
			}
			var h hold.Handle
			if err := json.Unmarshal([]byte(s.HoldHandle()), &h); err != nil || h.Dir == "" {
				t.Fatalf("not held: %q %v", s.HoldHandle(), err)
			}
			t.Cleanup(func() {
				_ = syscall.Kill(-h.Pid, syscall.SIGKILL)
				_ = syscall.Kill(h.Holder, syscall.SIGKILL)
			})
			if why := lessSafeOf(s); why != "" {
				t.Errorf("a process this bot started is less safe than its own config: %q", why)
			}
			handle := s.HoldHandle()
			s.Detach()
			for range s.Events() {
			}
			if c.handle != nil {
				handle = c.handle(handle)
			}
			s2, err := Reattach(context.Background(), now, handle, 0)
			if err != nil {
				t.Fatalf("reattach: %v", err)
			}
			t.Cleanup(func() {
				_ = s2.Close(context.Background())
				for range s2.Events() {
				}
			})
			why := lessSafeOf(s2.conn())
			if got := why != ""; got != c.wantLessSafe {
				t.Errorf("re-attached: less safe %q, want less safe: %v", why, c.wantLessSafe)
			}
			// The record goes on with the process: a bot after this one
			// knows it as well.
			if why2 := lessSafeOf(mustReattachAgain(t, s2, now)); (why2 != "") != c.wantLessSafe {
				t.Errorf("re-attached a second time: less safe %q, want less safe: %v", why2, c.wantLessSafe)
			}
		})
	}
}

// lessSafeOf is what conn says of how its process was started ("" when
// it says nothing).
func lessSafeOf(conn any) string {
	if l, ok := conn.(interface{ LessSafe() string }); ok {
		return l.LessSafe()
	}
	return "(it does not say)"
}

// mustReattachAgain detaches s as a stopping bot does and attaches again
// with opts, from the handle s gives.
func mustReattachAgain(t *testing.T, s *Session, opts Options) *Session {
	t.Helper()
	handle := s.HoldHandle()
	s.Detach()
	for range s.Events() {
	}
	s2, err := Reattach(context.Background(), opts, handle, 0)
	if err != nil {
		t.Fatalf("reattach again: %v", err)
	}
	t.Cleanup(func() {
		_ = s2.Close(context.Background())
		for range s2.Events() {
		}
	})
	return s2
}
