package telegram

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/untether/untether/prefs"
)

func TestFileNames(t *testing.T) {
	for _, c := range []struct {
		msgID, i int
		f        prefs.File
		want     string
	}{
		{7, 0, prefs.File{Kind: "photo"}, "7-photo.jpg"},
		{7, 1, prefs.File{Kind: "document", Name: "report v2 (final).pdf"}, "7-1-report_v2__final_.pdf"},
		{8, 0, prefs.File{Kind: "document", Name: "../../.ssh/authorized_keys"}, "8-authorized_keys"},
		{8, 0, prefs.File{Kind: "document", Name: "..\\..\\win.ini"}, "8-win.ini"},
		{9, 0, prefs.File{Kind: "document", Name: ".bashrc"}, "9-bashrc"},
		{9, 0, prefs.File{Kind: "document", Name: "日本語.txt"}, "9-___.txt"},
		{9, 0, prefs.File{Kind: "document", Name: ""}, "9-file"},
	} {
		if got := fileName(c.msgID, c.i, c.f); got != c.want {
			t.Errorf("fileName(%d, %d, %q) = %q, want %q", c.msgID, c.i, c.f.Name, got, c.want)
		}
	}
}

func TestPublicAPI(t *testing.T) {
	for url, want := range map[string]bool{
		"":                          true,
		"https://api.telegram.org":  true,
		"https://API.Telegram.org/": true,
		"http://127.0.0.1:8081":     false,
		"https://tg.example.com":    false,
	} {
		b := &Bot{cfg: Config{APIURL: url}}
		if got := b.publicAPI(); got != want {
			t.Errorf("publicAPI(%q) = %v, want %v", url, got, want)
		}
	}
}

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
