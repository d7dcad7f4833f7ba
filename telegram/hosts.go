package telegram

import (
	"context"
	"strings"
	"sync"
	"time"

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
	st := b.core.Settings(key)
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
	if b.core.Working(key) {
		return view.HostBusy
	}
	if err := b.store.SetHost(key, name); err != nil {
		return view.SettingNotSaved(b.redact(err.Error()))
	}
	b.core.SetAside(key)
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
