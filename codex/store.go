package codex

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/host"
)

// Codex's own threads, for /sessions (engine.SessionStore). Measured with
// 0.171.0 (docs/protocol-codex.md, "Codex's threads on disk"): every
// thread is one JSON-lines file, $CODEX_HOME/sessions/YYYY/MM/DD/
// rollout-<local time>-<thread id>.jsonl, dated by the machine's local
// time when the thread started; its first line (session_meta) records the
// directory it started in, every prompt is an item_completed event with a
// UserMessage item, and a resumed thread appends to the same file. They
// are read directly, as Claude's store is: no app-server is started for a
// listing, and StatSession (asked before every turn) costs a few stats.

// Store is Codex's thread store under its home ($CODEX_HOME) on a machine.
type Store struct {
	// Home is $CODEX_HOME there.
	Home string
	// Host is the machine; nil is this one.
	Host host.Host
}

var (
	_ engine.SessionStore = Store{}
	_ engine.Stores       = (*Engine)(nil)
)

// SessionStore implements engine.Stores: the threads in the CODEX_HOME
// the engine's app-server gets, nil when its home is not known (a host
// that did not say its HOME).
func (e *Engine) SessionStore() engine.SessionStore {
	o := e.Base.withDefaults()
	if home := o.codexHome(); home != "" {
		return Store{Home: home, Host: o.Host}
	}
	return nil
}

// codexHome is where Codex started with these options keeps its files:
// CODEX_HOME, else .codex in HOME, looked up in the environment it gets
// (on another machine, laid over that machine's own).
func (o Options) codexHome() string {
	env := map[string]string{}
	for _, kv := range o.childEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	lookup := func(k string) string {
		if v, ok := env[k]; ok || host.IsLocal(o.Host) {
			return v
		}
		return o.Host.Getenv(k)
	}
	if h := lookup("CODEX_HOME"); h != "" {
		return h
	}
	if h := lookup("HOME"); h != "" {
		return path.Join(h, ".codex")
	}
	return ""
}

// thread is a rollout file found in the store.
type thread struct {
	id, path string
	modified time.Time
	size     int64
}

// The bounds of a listing. /sessions runs on the chat's lane and, on a
// [hosts.NAME], every folder read and file opened is a round trip (20 ms
// or more): a listing looks at the newest listDays day folders (a month,
// by the threads' start) and, of those, at most listFiles files, newest
// first (a busy owner's month at three threads a day). Older threads are
// not looked at; a thread of the directory that started before them is
// not listed even when it was resumed since. Bounded so, an empty
// project's first listing opens at most listFiles files, each read to its
// first line, and later listings open only the files that changed.
const (
	listDays  = 31
	listFiles = 100
)

// ListSessions implements engine.SessionStore: the newest rollout files
// (the bounds above), newest first, read until limit of dir's are found;
// of another directory's only the first line is read, once.
func (s Store) ListSessions(ctx context.Context, dir string, limit int) ([]engine.PastSession, error) {
	all, err := s.newest(ctx)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b thread) int { return b.modified.Compare(a.modified) })
	var mine []engine.PastSession
	for _, t := range all[:min(len(all), listFiles)] {
		if limit > 0 && len(mine) == limit {
			break
		}
		p, err := s.read(ctx, t, dir)
		if err != nil || !p.BelongsTo(dir) {
			continue // another directory's, or unreadable
		}
		mine = append(mine, p)
	}
	return mine, nil
}

// ReadSession implements engine.SessionStore: the thread wherever it
// started (the caller checks BelongsTo). The bot reads its live thread
// after every turn: only what was added since the last read is scanned,
// and an unchanged file is not opened (storescan.go).
func (s Store) ReadSession(ctx context.Context, dir, id string) (engine.PastSession, error) {
	t, ok := s.find(ctx, id)
	if !ok {
		return engine.PastSession{}, fmt.Errorf("no thread %s in Codex's store %s", id, s.Home)
	}
	p, err := s.read(ctx, t, "")
	if err != nil {
		return engine.PastSession{}, fmt.Errorf("read Codex thread %s: %w", id, err)
	}
	return p, nil
}

// StatSession implements engine.SessionStore.
func (s Store) StatSession(dir, id string) (engine.PastSession, bool) {
	t, ok := s.find(context.Background(), id)
	if !ok {
		return engine.PastSession{}, false
	}
	return engine.PastSession{ID: id, Modified: t.modified, Size: t.size}, true
}

// find looks for thread id's file. A thread this process listed or found
// before is where it was (one stat). Else Codex's ids are UUIDv7, whose
// first 48 bits are the thread's start in Unix milliseconds: its folder
// is that day's in the machine's local time, which is the UTC day or one
// either side. An id of another form (Codex before UUIDv7 ids, threads
// over a year old) is not looked for: walking every folder of the store
// cost 379 folder reads in a year's store, before every turn.
func (s Store) find(ctx context.Context, id string) (thread, bool) {
	if !validThreadID(id) {
		return thread{}, false
	}
	if p, ok := knownPath(s.Home, id); ok {
		if fi, err := host.Or(s.Host).Lstat(ctx, p); err == nil && fi.Mode().IsRegular() {
			return thread{id: id, path: p, modified: fi.ModTime(), size: fi.Size()}, true
		}
		forgetThread(s.Home, id) // archived or deleted since
	}
	t, ok := uuid7Time(id)
	if !ok {
		return thread{}, false
	}
	want := func(name string) bool { return name == id }
	for _, d := range []time.Time{t.AddDate(0, 0, -1), t, t.AddDate(0, 0, 1)} {
		if found := s.day(ctx, path.Join(s.Home, "sessions", d.Format("2006/01/02")), want); len(found) > 0 {
			rememberThread(s.Home, found[0])
			return found[0], true
		}
	}
	return thread{}, false
}

// newest lists the rollout files of the newest day folders, newest day
// first, until listDays folders or listFiles files. No store yet is none.
func (s Store) newest(ctx context.Context) ([]thread, error) {
	root := path.Join(s.Home, "sessions")
	all := func(string) bool { return true }
	var out []thread
	years, err := s.dirs(ctx, root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read Codex's threads in %s: %w", root, err)
	}
	days := 0
	// Folder names are fixed-width numbers: by name is by date.
	for _, y := range slices.Backward(years) {
		months, _ := s.dirs(ctx, path.Join(root, y))
		for _, m := range slices.Backward(months) {
			ds, _ := s.dirs(ctx, path.Join(root, y, m))
			for _, d := range slices.Backward(ds) {
				out = append(out, s.day(ctx, path.Join(root, y, m, d), all)...)
				if days++; days == listDays || len(out) >= listFiles {
					return out, nil
				}
			}
		}
	}
	return out, nil
}

// dirs are the names of the folders in dir.
func (s Store) dirs(ctx context.Context, dir string) ([]string, error) {
	entries, err := host.Or(s.Host).ReadDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// day is one day folder's rollout files whose id keep accepts; a folder
// that cannot be read has none.
func (s Store) day(ctx context.Context, dir string, keep func(id string) bool) []thread {
	entries, err := host.Or(s.Host).ReadDir(ctx, dir)
	if err != nil {
		return nil
	}
	var out []thread
	for _, e := range entries {
		id, ok := rolloutID(e.Name())
		if !ok || !e.Type().IsRegular() || !keep(id) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, thread{id: id, path: path.Join(dir, e.Name()), modified: fi.ModTime(), size: fi.Size()})
	}
	return out
}

// rolloutID is the thread id in a rollout file's name:
// rollout-2026-11-28T20-36-25-<id>.jsonl, the time 19 characters.
func rolloutID(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "rollout-")
	if !ok {
		return "", false
	}
	rest, ok = strings.CutSuffix(rest, ".jsonl")
	if !ok || len(rest) < 21 || rest[19] != '-' {
		return "", false
	}
	id := rest[20:]
	return id, validThreadID(id)
}

// validThreadID accepts a UUID's characters and little more, so an id
// from a file name or a button is never a path.
func validThreadID(id string) bool {
	if id == "" || len(id) > 100 || id[0] == '-' {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == '-') {
			return false
		}
	}
	return true
}

// uuid7Time is the time in a version 7 UUID.
func uuid7Time(id string) (time.Time, bool) {
	b, err := hex.DecodeString(strings.ReplaceAll(id, "-", ""))
	if err != nil || len(b) != 16 || b[6]>>4 != 7 {
		return time.Time{}, false
	}
	ms := int64(b[0])<<40 | int64(b[1])<<32 | int64(b[2])<<24 | int64(b[3])<<16 | int64(b[4])<<8 | int64(b[5])
	return time.UnixMilli(ms).UTC(), true
}
