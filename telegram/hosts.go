package telegram

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/untether/untether/chat"
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
	m, moved, err := b.core.MoveToMachine(key, name)
	switch {
	case errors.Is(err, chat.ErrNoMachine):
		return view.HostUnknown(name, b.machines.Names())
	case errors.Is(err, chat.ErrBusy):
		return view.HostBusy
	case err != nil:
		return view.SettingNotSaved(b.redact(err.Error()))
	case !moved:
		return view.HostUnchanged(name)
	}
	warn := ""
	if _, err := m.Reach(ctx, probeWait); err != nil {
		warn = b.redact(err.Error())
	}
	return view.HostMoved(name, m.WorkDir, warn)
}

// hostItems looks at every machine at once, each within probeWait.
func (b *Bot) hostItems(ctx context.Context, current string) []view.HostItem {
	var items []view.HostItem
	for _, r := range b.machines.Reach(ctx, probeWait) {
		it := view.HostItem{Name: r.Name, Live: r.Live, MaxLive: r.MaxLive, WorkDir: r.WorkDir, ClaudeVersion: r.Version,
			Current: r.Name == current, Default: r.Default}
		if r.Err != nil {
			it.Err = b.redact(r.Err.Error())
		}
		items = append(items, it)
	}
	return items
}
