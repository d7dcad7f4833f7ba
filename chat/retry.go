package chat

import "github.com/untether/untether/prefs"

// /retry: messages whose machine could not be reached are kept, and run
// again, first in line, when asked.

// keptPrompt is a message whose machine could not be reached: it stays
// pending in the store (a restart runs it again) and /retry runs it now.
type keptPrompt struct {
	qp     prefs.QueuedPrompt
	merged []uint64
}

// keep sets a prompt aside for /retry.
func (a *session) keep(qp prefs.QueuedPrompt, merged []uint64) {
	a.mu.Lock()
	a.kept = append(a.kept, keptPrompt{qp: qp, merged: merged})
	a.mu.Unlock()
}

// retryKept puts the kept prompts first in line, oldest first, and says
// how many there were.
func (a *session) retryKept() int {
	a.mu.Lock()
	n := len(a.kept)
	a.again = append(a.again, a.kept...)
	a.kept = nil
	if n > 0 {
		a.startLocked()
	}
	a.mu.Unlock()
	if n > 0 {
		signal(a.wake)
	}
	return n
}

// popAgain takes the next prompt /retry asked for.
func (a *session) popAgain() (keptPrompt, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.again) == 0 || a.stopped {
		return keptPrompt{}, false
	}
	k := a.again[0]
	a.again = a.again[1:]
	return k, true
}

// dropKept forgets the kept prompts (/new): they are marked done.
func (a *session) dropKept() []uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	var seqs []uint64
	for _, k := range append(a.kept, a.again...) {
		seqs = append(seqs, k.qp.Seq)
		seqs = append(seqs, k.merged...)
	}
	a.kept, a.again = nil, nil
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
