package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// Linker is what WalkLinks needs of a host.
type Linker interface {
	Lstat(ctx context.Context, path string) (fs.FileInfo, error)
	Readlink(ctx context.Context, path string) (string, error)
}

// maxLinks bounds the links followed while resolving one path, as the
// kernel does (ELOOP), so a link cycle cannot spin.
const maxLinks = 255

// ErrLoop is a path whose links do not end.
var ErrLoop = errors.New("too many levels of symbolic links")

// WalkLinks returns the absolute path p with every link followed, the way
// the kernel walks it: ".." steps up from where the links led, not from
// the text. A part that does not exist is kept as it is, so a file about
// to be created is placed by its existing parent; a dangling link is
// followed to where it points. Errors other than "does not exist" (a file
// used as a folder, no permission, a link loop) are returned. It is the
// path rule's resolution (package scope); a host implements ResolveLinks
// with it over its own Lstat and Readlink, or answers the same in one
// step on the machine.
func WalkLinks(ctx context.Context, l Linker, p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%q is not absolute", p)
	}
	done := "/"
	rest := split(p)
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, c)
		fi, err := l.Lstat(ctx, next)
		if errors.Is(err, fs.ErrNotExist) {
			// Nothing to follow here; the walk goes on, so a ".." back out
			// of a missing folder still meets the links after it.
			done = next
			continue
		}
		if err != nil {
			return "", fmt.Errorf("resolving %s: %w", p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("resolving %s: %w", p, ErrLoop)
		}
		target, err := l.Readlink(ctx, next)
		if err != nil {
			return "", fmt.Errorf("resolving %s: %w", p, err)
		}
		if filepath.IsAbs(target) {
			done = "/"
		}
		rest = append(split(target), rest...)
	}
	return done, nil
}

func split(p string) []string { return strings.Split(p, "/") }
