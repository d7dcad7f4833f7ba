package filesend

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/untether/untether/host/hosttest"
	"github.com/untether/untether/scope"
)

// A file is checked, opened and read on the rule's host.
func TestReadUsesTheRulesHost(t *testing.T) {
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(work, "a.txt")
	if err := os.WriteFile(p, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := &hosttest.Recorder{}
	f, err := Read(context.Background(), scope.Rule{Host: rec, WorkDir: work}, "a.txt", 0)
	if err != nil || string(f.Data) != "hello" {
		t.Fatalf("Read = %q, %v", f.Data, err)
	}
	for _, call := range []string{"ResolveLinks " + p, "Stat " + p, "Open " + p} {
		if !rec.Called(call) {
			t.Errorf("no %q among the host's calls: %v", call, rec.Calls())
		}
	}
}
