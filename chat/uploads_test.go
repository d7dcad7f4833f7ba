package chat

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A chat's upload folder made a moment ago, still empty, is a download
// about to write into it: the sweep at start-up must not remove it. One
// that only old files kept goes with them.
func TestRemoveOldUploadsKeepsFreshFolder(t *testing.T) {
	root := t.TempDir()
	fresh, old := filepath.Join(root, "5150"), filepath.Join(root, "4242")
	for _, d := range []string{fresh, old} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	stale := filepath.Join(old, "1-photo.jpg")
	if err := os.WriteFile(stale, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	long := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(stale, long, long); err != nil {
		t.Fatal(err)
	}
	n, err := removeOldUploads(root, time.Now().Add(-time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("removed %d, %v; want the old file", n, err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("the fresh folder was removed: %v", err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the folder the sweep emptied is still there: %v", err)
	}
}
