package hold

import (
	"fmt"
	"os"
	"path/filepath"
)

// journal is the file of records (0600, in the holder's 0700 folder): each
// a frame as it is sent (appendRecord). It lives as long as the session:
// the holder removes it with its folder. The index of offsets is kept in
// memory: only the holder that wrote the file reads it.
type journal struct {
	path string
	f    *os.File
	// recs[i] is record first+i: its offset and length in f.
	first uint64
	recs  []span
	size  int64
	// max bounds the file: past it, delivered records are dropped first,
	// then the oldest ones (a client that never trims loses replay, not
	// the machine's disk).
	max       int64
	delivered uint64
}

type span struct{ off, n int64 }

func openJournal(dir string, max int64) (*journal, error) {
	path := filepath.Join(dir, "journal")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create journal: %w", err)
	}
	return &journal{path: path, f: f, first: 1, max: max}, nil
}

// last is the seq of the newest record (first-1 when there is none).
func (j *journal) last() uint64 { return j.first + uint64(len(j.recs)) - 1 }

// add appends a record and returns its seq.
func (j *journal) add(in bool, line []byte) (uint64, error) {
	seq := j.last() + 1
	b := appendRecord(nil, Record{Seq: seq, In: in, Line: line})
	if _, err := j.f.WriteAt(b, j.size); err != nil {
		return 0, fmt.Errorf("append to journal: %w", err)
	}
	j.recs = append(j.recs, span{j.size, int64(len(b))})
	j.size += int64(len(b))
	if j.max > 0 && j.size > j.max {
		if err := j.compact(); err != nil {
			return seq, err
		}
	}
	return seq, nil
}

// read returns record seq's frame, newline included.
func (j *journal) read(seq uint64) ([]byte, error) {
	if seq < j.first || seq > j.last() {
		return nil, fmt.Errorf("record %d is not in the journal (%d..%d)", seq, j.first, j.last())
	}
	s := j.recs[seq-j.first]
	b := make([]byte, s.n)
	if _, err := j.f.ReadAt(b, s.off); err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	return b, nil
}

// trim notes that records up to seq were delivered; the file is rewritten
// without them once they make up half of it, so a long session's journal
// stays about as large as its undelivered tail.
func (j *journal) trim(seq uint64) error {
	j.delivered = max(j.delivered, min(seq, j.last()))
	if j.delivered < j.first || len(j.recs) == 0 {
		return nil
	}
	if cut := j.recs[j.delivered-j.first]; cut.off+cut.n < j.size/2 {
		return nil
	}
	return j.dropThrough(j.delivered)
}

// compact makes room under max: delivered records go, then the oldest
// half of the rest.
func (j *journal) compact() error {
	upTo := j.delivered
	if upTo < j.first {
		upTo = j.first + uint64(len(j.recs))/2
	}
	return j.dropThrough(min(upTo, j.last()))
}

// dropThrough rewrites the file without records up to seq.
func (j *journal) dropThrough(seq uint64) error {
	if seq < j.first {
		return nil
	}
	keep := j.recs[seq-j.first+1:]
	var from int64 = j.size
	if len(keep) > 0 {
		from = keep[0].off
	}
	rest := make([]byte, j.size-from)
	if _, err := j.f.ReadAt(rest, from); err != nil && len(rest) > 0 {
		return fmt.Errorf("read journal: %w", err)
	}
	tmp := j.path + ".new"
	nf, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("rewrite journal: %w", err)
	}
	if _, err := nf.Write(rest); err != nil {
		_ = nf.Close()
		return fmt.Errorf("rewrite journal: %w", err)
	}
	if err := os.Rename(tmp, j.path); err != nil {
		_ = nf.Close()
		return fmt.Errorf("rewrite journal: %w", err)
	}
	_ = j.f.Close()
	j.f = nf
	recs := make([]span, len(keep))
	for i, s := range keep {
		recs[i] = span{s.off - from, s.n}
	}
	j.recs, j.first, j.size = recs, seq+1, j.size-from
	return nil
}

func (j *journal) close() { _ = j.f.Close() }
