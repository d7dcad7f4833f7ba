package runner

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/untether/untether/engine"

	"github.com/untether/untether/runner/claudetest"
)

// TestContractReadOutsideAsked pins down what the CLI asks about reads,
// which the approvals path rule relies on: a Read inside the working
// directory or an --add-dir directory is not asked; a Read outside is, with
// the input's file_path already absolute and cleaned (~ expanded, ".."
// removed) and decision_reason_type "workingDir"; a link in the project
// pointing out is asked with the link as file_path and its target as
// blocked_path; WebFetch is asked.
func TestContractReadOutsideAsked(t *testing.T) {
	outside, added := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "id_ed25519")
	for _, f := range []string{secret, filepath.Join(added, "notes.md")} {
		if err := os.WriteFile(f, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r := newRig(t, true)
	if err := os.WriteFile(r.path("main.go"), []byte("package main\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, r.path("innocent.txt")); err != nil {
		t.Fatal(err)
	}
	read := func(p string) claudetest.Reply {
		return claudetest.Answer(claudetest.ToolUse("Read", map[string]any{"file_path": p}))
	}
	r.serve(
		read(r.path("main.go")),
		read("main.go"),
		read(filepath.Join(added, "notes.md")),
		read(secret),
		read(r.opts.WorkDir+"/sub/../../"+filepath.Base(outside)+"/id_ed25519"),
		read("~/x.txt"),
		read(r.path("innocent.txt")),
		claudetest.Answer(claudetest.ToolUse("WebFetch", map[string]any{"url": "http://127.0.0.1:1/?d=x", "prompt": "p"})),
		claudetest.Say("done"))
	s := r.start(func(o *Options) { o.AddDirs = []string{added} })
	var asked []engine.ApprovalRequest
	log := turn(t, s, "Read them.", func(req engine.ApprovalRequest) {
		asked = append(asked, req)
		if err := s.Deny(ctxFor(t), req.RequestID, "no", false); err != nil {
			t.Fatal(err)
		}
	})
	if !log.done.OK {
		t.Fatalf("turn: %+v%s", log.done, log)
	}
	var got []string
	for _, a := range asked {
		p := inputField(t, a.Input, "file_path")
		if a.ToolName == "WebFetch" {
			p = inputField(t, a.Input, "url")
		}
		got = append(got, a.ToolName+" "+p+" blocked="+a.BlockedPath+" reason="+a.DecisionReasonType)
	}
	// t.TempDir() is clean, so the CLI's absolute forms are these.
	want := []string{
		"Read " + secret + " blocked= reason=workingDir",
		"Read " + filepath.Join(filepath.Dir(r.opts.WorkDir), filepath.Base(outside), "id_ed25519") + " blocked= reason=workingDir",
		"Read " + filepath.Join(r.home, "x.txt") + " blocked= reason=workingDir",
		"Read " + r.path("innocent.txt") + " blocked=" + secret + " reason=workingDir",
		"WebFetch http://127.0.0.1:1/?d=x blocked= reason=",
	}
	if !slices.Equal(got, want) {
		t.Errorf("asked:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	for _, a := range asked {
		if a.ToolName == "Read" && (len(a.Suggestions) != 1 || !strings.Contains(string(a.Suggestions[0]), `"toolName":"Read"`)) {
			t.Errorf("suggestions of %s: %s", a.Input, a.Suggestions)
		}
	}
	if ok := eventsOf[engine.ActionCompleted](log.events); len(ok) != 8 || !ok[0].OK || !ok[1].OK || !ok[2].OK {
		t.Errorf("the reads inside and in the added dir did not succeed:%s", log)
	}
}
