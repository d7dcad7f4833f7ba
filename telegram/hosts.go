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
	m, ok := b.machines[name]
	if !ok {
		return view.HostUnknown(name, b.machineNames())
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
	if _, err := m.probe(ctx); err != nil {
		warn = b.redact(err.Error())
	}
	return view.HostMoved(name, m.WorkDir, warn)
}

// hostItems looks at every machine at once, each within probeWait.
func (b *Bot) hostItems(ctx context.Context, current string) []view.HostItem {
	names := b.machineNames()
	items := make([]view.HostItem, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		m := b.machines[n]
		items[i] = view.HostItem{Name: n, Live: m.pool.live(), MaxLive: m.MaxLive, WorkDir: m.WorkDir,
			Current: n == current, Default: n == b.defaultMachine().Name}
		wg.Go(func() {
			v, err := m.probe(ctx)
			items[i].ClaudeVersion = v
			if err != nil {
				items[i].Err = b.redact(err.Error())
			}
		})
	}
	wg.Wait()
	return items
}

// probe asks the machine whether it answers, and its CLI's version.
func (m *machine) probe(ctx context.Context) (string, error) {
	if m.Probe == nil {
		return m.ClaudeVersion, nil
	}
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	return m.Probe(ctx)
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
	if d := b.defaultMachine().Name; d != name {
		out = append(out, d)
	}
	for _, n := range b.machineNames() {
		if n != name && n != b.defaultMachine().Name {
			out = append(out, n)
		}
	}
	return out
}
