package hold

import "sync/atomic"

// Replay gathers what a re-attach replays, the records up to its
// welcome's Last, for a session's reader to handle whole once they are all
// there (the answers in it are known before any request is handled). A
// connection that drops meanwhile loses none of it: the relink replays
// from the record after the last one read (Relinking.From), and the
// gathering goes on over the new client. Records past Last came after the
// re-attach: they are read live, after the replay, as without a drop.
type Replay struct {
	last      uint64
	next      uint64 // the record expected next
	truncated bool
	frames    []Frame
	done      bool
}

// NewReplay is the replay from record from of an attach welcomed with w.
func NewReplay(from uint64, w Welcome) *Replay {
	return &Replay{last: w.Last, next: max(from, w.First), truncated: from < w.First}
}

// Pending says whether the replay is still being gathered; never for a
// nil Replay (nothing to restore).
func (r *Replay) Pending() bool { return r != nil && !r.done }

// Gather takes a frame read while the replay is pending: gathered, it is
// the replay's own (a record of it, or its end); complete, the replay is
// all there, to be handled (Take) before a frame not gathered is.
func (r *Replay) Gather(f Frame) (gathered, complete bool) {
	switch f.Kind {
	case kindReplay:
		return true, true
	case kindOut, kindIn:
		seq := f.Record.Seq
		if seq > r.last {
			// Past the replay: its last records, if not read yet, were
			// dropped from the journal while the connection was down.
			r.truncated = r.truncated || r.next <= r.last
			return false, true
		}
		// A gap: the journal dropped records while the connection was down.
		r.truncated = r.truncated || seq > r.next
		r.next = seq + 1
		r.frames = append(r.frames, f)
		return true, seq == r.last
	}
	return false, false
}

// Take ends the gathering: the replay's records, and whether the journal
// had dropped some of those asked for.
func (r *Replay) Take() (frames []Frame, truncated bool) {
	frames, r.frames, r.done = r.frames, nil, true
	return frames, r.truncated
}

// Step takes each frame a session's reader reads: it moves seen to the
// last record read (a relink replays from the one after it), gathers the
// frame while the replay is pending, calls handle with the whole replay
// once it is all there, and says whether the frame was the replay's own
// (the reader is done with it). The same for every engine's reader.
func (r *Replay) Step(f Frame, seen *atomic.Uint64, handle func(frames []Frame, truncated bool)) (gathered bool) {
	switch f.Kind {
	case kindOut, kindIn:
		seen.Store(f.Record.Seq)
	case kindReplay:
		seen.Store(max(seen.Load(), f.Seq))
	}
	if !r.Pending() {
		return false
	}
	gathered, complete := r.Gather(f)
	if complete {
		handle(r.Take())
	}
	return gathered
}
