package host

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"strings"
	"testing"
	"time"
)

// linkFS is a made-up machine: links and folders in maps, so WalkLinks
// is seen to follow only what its Linker says.
type linkFS struct {
	dirs  map[string]bool
	links map[string]string
	asked []string
}

type info struct {
	name string
	mode fs.FileMode
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return 0 }
func (i info) Mode() fs.FileMode  { return i.mode }
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.mode.IsDir() }
func (i info) Sys() any           { return nil }

func (l *linkFS) Lstat(_ context.Context, p string) (fs.FileInfo, error) {
	l.asked = append(l.asked, p)
	switch {
	case l.links[p] != "":
		return info{path.Base(p), fs.ModeSymlink}, nil
	case l.dirs[p]:
		return info{path.Base(p), fs.ModeDir}, nil
	case p == "/bad":
		return nil, fs.ErrPermission
	}
	return nil, fs.ErrNotExist
}

func (l *linkFS) Readlink(_ context.Context, p string) (string, error) { return l.links[p], nil }

func TestWalkLinks(t *testing.T) {
	l := &linkFS{
		dirs: map[string]bool{"/w": true, "/w/proj": true, "/etc": true, "/w/other": true},
		links: map[string]string{
			"/w/proj/out":  "/etc",         // absolute
			"/w/proj/up":   "../other",     // relative, from the link's folder
			"/w/proj/gone": "/nowhere/x",   // dangling: followed all the same
			"/w/proj/loop": "/w/proj/loop", // a cycle
		},
	}
	ctx := context.Background()
	for _, c := range []struct{ in, want string }{
		{"/w/proj/out/passwd", "/etc/passwd"},
		{"/w/proj/up/f", "/w/other/f"},
		{"/w/proj/gone", "/nowhere/x"},
		{"/w/proj/new/file", "/w/proj/new/file"}, // not made yet: kept
		{"/w/proj/out/../x", "/x"},               // ".." from where the link led
		{"/w/proj/missing/../out/y", "/etc/y"},   // a ".." back out of a missing folder
		{"/w//proj/./up", "/w/other"},
	} {
		got, err := WalkLinks(ctx, l, c.in)
		if err != nil || got != c.want {
			t.Errorf("WalkLinks(%s) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := WalkLinks(ctx, l, "/w/proj/loop/x"); !errors.Is(err, ErrLoop) {
		t.Errorf("a link cycle: %v, want ErrLoop", err)
	}
	if _, err := WalkLinks(ctx, l, "relative"); err == nil {
		t.Error("a relative path: no error")
	}
	if _, err := WalkLinks(ctx, l, "/bad/x"); !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "/bad/x") {
		t.Errorf("an error other than not-exist: %v", err)
	}
}
