package codex

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/host"
	"github.com/untether/untether/safefile"
)

// Reading rollout files, and what this process remembers of them. A
// rollout is only appended to (a resume goes on in the same file) and its
// first line, with the directory, never changes: so a file read before
// is read on from where the last read stopped, and not opened at all
// when its size is what was read. The bot reads its live thread after
// every turn (chat's markStore) and rollouts hold whole command outputs.

// maxKnown bounds the threads remembered: a few listings' worth
// (listFiles) on a few machines. When full, one is forgotten.
const maxKnown = 1024

// known are the threads this process has listed or found, by store
// ($CODEX_HOME) and thread id. A host is not part of the key: an id is a
// UUID, and a path remembered is checked (a stat) before it is used, a
// scan only reused for a file of the same size.
var known = struct {
	sync.Mutex
	m map[[2]string]*scan
}{m: map[[2]string]*scan{}}

// scan is what a read of a rollout file found, up to offset.
type scan struct {
	path string
	// offset is the end of the last whole line read; a line being
	// written (no newline yet) is read again next time.
	offset     int64
	metaSeen   bool
	cwd, first string
	turns      int
}

// knownPath is where thread id of the store at home was last seen.
func knownPath(home, id string) (string, bool) {
	known.Lock()
	defer known.Unlock()
	if sc, ok := known.m[[2]string{home, id}]; ok {
		return sc.path, true
	}
	return "", false
}

// rememberThread notes where thread t is, keeping what was read of it there.
func rememberThread(home string, t thread) {
	known.Lock()
	defer known.Unlock()
	k := [2]string{home, t.id}
	if sc, ok := known.m[k]; ok && sc.path == t.path {
		return
	}
	put(k, &scan{path: t.path})
}

// forgetThread forgets thread id of the store at home.
func forgetThread(home, id string) {
	known.Lock()
	delete(known.m, [2]string{home, id})
	known.Unlock()
}

// put stores sc under k, forgetting another thread when full. Under
// known's lock.
func put(k [2]string, sc *scan) {
	if _, ok := known.m[k]; !ok && len(known.m) >= maxKnown {
		for old := range known.m {
			delete(known.m, old)
			break
		}
	}
	known.m[k] = sc
}

// read reads a thread's file from where the last read of it stopped. With
// only set, a thread that did not start in only is returned after its
// first line, its prompts not counted; its directory, once read, is not
// read again.
func (s Store) read(ctx context.Context, t thread, only string) (engine.PastSession, error) {
	k := [2]string{s.Home, t.id}
	var sc scan
	known.Lock()
	if c, ok := known.m[k]; ok && c.path == t.path {
		sc = *c
	}
	known.Unlock()
	sc.path = t.path
	session := func(r scan, modified time.Time, size int64) engine.PastSession {
		return engine.PastSession{ID: t.id, Dir: r.cwd, FirstPrompt: r.first, Turns: r.turns, Modified: modified, Size: size}
	}
	if sc.metaSeen && (sc.offset == t.size || only != "" && !belongs(sc.cwd, only)) {
		return session(sc, t.modified, t.size), nil
	}
	// By the host's safe open: the store is written by Codex's
	// processes, so a FIFO in a file's place is refused, never waited on;
	// the scan is bounded by ctx (safefile.Within).
	return safefile.Within(ctx, func() (engine.PastSession, error) {
		f, fi, err := host.Or(s.Host).Open(ctx, t.path, 0)
		if err != nil {
			return engine.PastSession{}, err
		}
		defer f.Close()
		if fi.Size() < sc.offset {
			sc = scan{path: t.path} // not the file read before
		}
		// host.File cannot seek: what was read before is skipped, not
		// scanned again.
		if _, err := io.CopyN(io.Discard, f, sc.offset); err != nil {
			return engine.PastSession{}, fmt.Errorf("skip the %d bytes read before: %w", sc.offset, err)
		}
		got, err := sc.scan(f, only)
		if err != nil {
			return engine.PastSession{}, err
		}
		known.Lock()
		put(k, &sc)
		known.Unlock()
		return session(got, fi.ModTime(), fi.Size()), nil
	})
}

func belongs(cwd, dir string) bool { return engine.PastSession{Dir: cwd}.BelongsTo(dir) }

// maxRolloutLine bounds the lines read in full; longer ones (a command's
// whole output) are skipped unread: a prompt is never that long in
// practice. The first line, with Codex's instructions, is about 21 kB.
const maxRolloutLine = 1 << 20

// rolloutLine is what a rollout line says about the thread.
type rolloutLine struct {
	Type    string `json:"type"`
	Payload struct {
		Type string `json:"type"`
		Cwd  string `json:"cwd"` // session_meta
		Item struct {
			Type    string `json:"type"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"item"`
	} `json:"payload"`
}

// scanRollout reads the directory the thread started in (its first
// session_meta line) and its prompts (UserMessage items). With only set
// and another directory, it stops after that line.
func scanRollout(r io.Reader, only string) (cwd, first string, turns int, err error) {
	var sc scan
	got, err := sc.scan(r, only)
	return got.cwd, got.first, got.turns, err
}

// scan reads on from r, which is at sc.offset, and moves sc on over the
// whole lines read. What it returns counts a last line without its
// newline too (a file that does not end in one), sc does not: that line
// may be half written.
func (sc *scan) scan(r io.Reader, only string) (scan, error) {
	// The buffer holds a first line (about 21 kB) whole: of another
	// directory's thread little more than that is read.
	br := bufio.NewReaderSize(r, 32<<10)
	for {
		line, n, err := readLine(br)
		if err == nil {
			sc.offset += n
			if sc.take(line, only) {
				return *sc, nil
			}
			continue
		}
		if errors.Is(err, io.EOF) {
			got := *sc
			got.take(line, only)
			return got, nil
		}
		return *sc, err
	}
}

// take notes one line; stop when the thread is another directory's.
func (sc *scan) take(line []byte, only string) (stop bool) {
	var l rolloutLine
	switch {
	case !sc.metaSeen && bytes.Contains(line, []byte(`"session_meta"`)):
		if json.Unmarshal(line, &l) == nil && l.Type == "session_meta" {
			sc.metaSeen, sc.cwd = true, l.Payload.Cwd
			return only != "" && !belongs(sc.cwd, only)
		}
	case bytes.Contains(line, []byte(`"UserMessage"`)):
		if json.Unmarshal(line, &l) == nil && l.Type == "event_msg" && l.Payload.Type == "item_completed" && l.Payload.Item.Type == "UserMessage" {
			sc.turns++
			if sc.first == "" {
				var parts []string
				for _, c := range l.Payload.Item.Content {
					if c.Type == "text" {
						parts = append(parts, c.Text)
					}
				}
				sc.first = strings.TrimSpace(strings.Join(parts, "\n"))
			}
		}
	}
	return false
}

// readLine returns the next line and the bytes it took, the line nil when
// over maxRolloutLine (read to its end and dropped).
func readLine(br *bufio.Reader) ([]byte, int64, error) {
	var line []byte
	var n int64
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if !tooLong && len(line)+len(chunk) > maxRolloutLine {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, n, err
		}
	}
}
