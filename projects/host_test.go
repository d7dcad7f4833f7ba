package projects

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/untether/untether/host/hosttest"
)

// Git runs on the host it is given: every git command is started there,
// and the index copy of a snapshot is read, written and removed there.
func TestGitUsesItsHost(t *testing.T) {
	dir, ctx := newRepo(t), context.Background()
	rec := &hosttest.Recorder{}
	g := Git{Host: rec}
	root, err := g.Root(ctx, dir)
	if err != nil || root != dir {
		t.Fatalf("Root = %q, %v; want %q", root, err, dir)
	}
	writeFile(t, filepath.Join(dir, "new.txt"), "x\n")
	files, _, _, err := g.Uncommitted(ctx, dir)
	if err != nil || len(files) != 1 || files[0].Path != "new.txt" {
		t.Fatalf("Uncommitted = %+v, %v", files, err)
	}
	index := filepath.Join(dir, ".git", "index")
	// The copy is made in the host's folder for temporary files (CreateTemp
	// with no folder), and removed once the snapshot is written.
	for _, call := range []string{"Start git", "Start touch", "ReadFile " + index, "CreateTemp ", "Remove " + filepath.Join(os.TempDir(), "untether-index-")} {
		if !rec.Called(call) {
			t.Errorf("no %q among the host's calls: %v", call, rec.Calls())
		}
	}
	for _, c := range rec.Calls() {
		// touch dates the index's copy as the index (Snapshot).
		if strings.HasPrefix(c, "Start ") && c != "Start git" && c != "Start touch" {
			t.Errorf("started something else than git and touch: %q", c)
		}
	}
}
