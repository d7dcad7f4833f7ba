package telegram

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/view"
)

// probeWait bounds /host's look at each machine (they are asked at once).
const probeWait = 10 * time.Second

// hostCommand lists the machines (no name) or moves the chat to machine
// NAME. A move forgets the chat's directory (a path on one machine means
// nothing on another) and sets its session aside: Claude Code keeps its
// sessions on the machine it ran on. Like /cwd it waits for an idle chat.
func (b *Bot) hostCommand(ctx context.Context, key string, arg string) string {
	name := strings.TrimSpace(arg)
	st := b.settings(key)
	if name == "" || name == "show" {
		return view.HostList(b.hostItems(ctx, st.Host))
	}
	m, ok := b.machines.Get(name)
	if !ok {
		return view.HostUnknown(name, b.machines.Names())
	}
	if name == st.Host {
		return view.HostUnchanged(name)
	}
	if a := b.existingActor(key); a != nil && a.working() {
		return view.HostBusy
	}
	if err := b.store.SetHost(key, name); err != nil {
		return view.SettingNotSaved(b.redact(err.Error()))
	}
	b.setSessionAside(key)
	warn := ""
	if _, err := m.Reach(ctx, probeWait); err != nil {
		warn = b.redact(err.Error())
	}
	return view.HostMoved(name, m.WorkDir, warn)
}

// hostItems looks at every machine at once, each within probeWait.
func (b *Bot) hostItems(ctx context.Context, current string) []view.HostItem {
	names := b.machines.Names()
	items := make([]view.HostItem, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		m := b.machines.Named(n)
		items[i] = view.HostItem{Name: n, Live: m.Pool.Live(), MaxLive: m.MaxLive, WorkDir: m.WorkDir,
			Current: n == current, Default: n == b.machines.Default().Name}
		wg.Go(func() {
			v, err := m.Reach(ctx, probeWait)
			items[i].ClaudeVersion = v
			if err != nil {
				items[i].Err = b.redact(err.Error())
			}
		})
	}
	wg.Wait()
	return items
}

// keptPrompt is a message whose machine could not be reached: it stays
// pending in the store (a restart runs it again) and /retry runs it now.
type keptPrompt struct {
	qp     prefs.QueuedPrompt
	merged []uint64
}

// keep sets a prompt aside for /retry.
func (a *actor) keep(qp prefs.QueuedPrompt, merged []uint64) {
	a.mu.Lock()
	a.kept = append(a.kept, keptPrompt{qp: qp, merged: merged})
	a.mu.Unlock()
}

// retryKept puts the kept prompts first in line, oldest first, and says
// how many there were.
func (a *actor) retryKept() int {
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
func (a *actor) popAgain() (keptPrompt, bool) {
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
func (a *actor) dropKept() []uint64 {
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
func (b *Bot) otherMachines(name string) []string {
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
