package chat

import "github.com/untether/untether/prefs"

// /retry: messages whose machine could not be reached stay unsent, and run
// again, first in line, when asked.

// unsentPrompt is a message whose machine could not be reached: it stays
// pending in the store (a restart runs it again) and /retry runs it now.
type unsentPrompt struct {
	qp     prefs.QueuedPrompt
	merged []uint64
}

// holdForRetry sets a prompt aside for /retry.
func (a *session) holdForRetry(qp prefs.QueuedPrompt, merged []uint64) {
	a.mu.Lock()
	a.unsent = append(a.unsent, unsentPrompt{qp: qp, merged: merged})
	a.mu.Unlock()
}

// retryUnsent puts the unsent prompts first in line, oldest first, and says
// how many there were.
func (a *session) retryUnsent() int {
	a.mu.Lock()
	n := len(a.unsent)
	a.retrying = append(a.retrying, a.unsent...)
	a.unsent = nil
	if n > 0 {
		a.startLocked()
	}
	a.mu.Unlock()
	if n > 0 {
		signal(a.wake)
	}
	return n
}

// popRetry takes the next prompt /retry asked for.
func (a *session) popRetry() (unsentPrompt, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.retrying) == 0 || a.stopped || a.undoing {
		return unsentPrompt{}, false
	}
	k := a.retrying[0]
	a.retrying = a.retrying[1:]
	return k, true
}

// dropUnsent forgets the unsent prompts (/new): they are marked done.
func (a *session) dropUnsent() []uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	var seqs []uint64
	for _, k := range append(a.unsent, a.retrying...) {
		seqs = append(seqs, k.qp.Seq)
		seqs = append(seqs, k.merged...)
	}
	a.unsent, a.retrying = nil, nil
	return seqs
}

// otherMachines are the machines a chat on name could move to, the
// default first.
func (b *Core) otherMachines(name string) []string {
	var out []string
	if d := b.machines.Default().Name; d != name {
		out = append(out, d)
	}
	for _, n := range b.machines.Names() {
		if n != name && n != b.machines.Default().Name {
			out = append(out, n)
		}
	}
	return out
}
