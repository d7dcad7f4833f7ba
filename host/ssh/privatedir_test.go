package ssh

import (
	"os"
	"path/filepath"
	"testing"
)

// The control folder is refused when another user made it or its parent
// (another user on the machine pre-made them in a shared /tmp), and made
// 0700 when it is ours.
func TestPrivateDir(t *testing.T) {
	base := t.TempDir()
	ok := filepath.Join(base, "mine", "ctl")
	if err := privateDir(ok); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(ok); fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %v", fi.Mode())
	}
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := privateDir(filepath.Join(open, "ctl")); err == nil {
		t.Error("a folder in a parent anyone can change was accepted")
	}
	if os.Getuid() != 0 {
		return // chown needs root
	}
	theirs := filepath.Join(base, "theirs")
	if err := os.Mkdir(theirs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := privateDir(filepath.Join(theirs, "ctl")); err == nil {
		t.Error("a folder in another user's parent was accepted")
	}
	link := filepath.Join(base, "mine", "link")
	if err := os.Symlink(ok, link); err != nil {
		t.Fatal(err)
	}
	if err := privateDir(link); err == nil {
		t.Error("a link was accepted as the control folder")
	}
}
