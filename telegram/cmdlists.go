package telegram

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/safefile"
)

// commandLists holds, per working directory, the agent's own commands
// there (the engine's CommandSource: Claude Code's custom commands). The files are the project's, and
// anyone who can write the project can put a FIFO among them, so the
// polling loop never reads them: it asks cached, which answers from memory
// and, on a miss, starts one background read of that directory. The list
// is read afresh, off the loop, when a session starts (refreshMenu) and
// before a command's prompt is sent (the actor's goroutine).
type commandLists struct {
	src     func(machine string) engine.CommandSource // the machine's engine's, asked at each read; nil: none
	mu      sync.Mutex
	lists   map[cmdDir][]engine.Command
	loading map[cmdDir]chan struct{} // closed when the read ends
}

// cmdDir is a directory on a machine: the same path on two machines is
// two projects.
type cmdDir struct{ machine, dir string }

// maxCommandLists bounds the directories remembered; past it, the lists
// are forgotten and read again when needed.
const maxCommandLists = 256

// groupListWait is how long the polling loop waits, once per directory
// and run, for a background read when a group's command may be the
// project's: in a group only Claude Code's commands pass unnamed, so the
// list decides whether the message is this bot's at all. The read itself
// is bounded by safefile; this bounds the loop.
const groupListWait = time.Second

func newCommandLists(src func(machine string) engine.CommandSource) *commandLists {
	return &commandLists{src: src, lists: map[cmdDir][]engine.Command{}, loading: map[cmdDir]chan struct{}{}}
}

// cached returns dir's list as last read, without touching the disk. On a
// miss it starts a background read and waits for it at most wait; ok is
// false when the list is still unknown.
func (c *commandLists) cached(dir cmdDir, wait time.Duration) (list []engine.Command, ok bool) {
	c.mu.Lock()
	list, ok = c.lists[dir]
	done := c.loading[dir]
	if !ok && done == nil {
		done = make(chan struct{})
		c.loading[dir] = done
		go c.load(context.Background(), dir)
	}
	c.mu.Unlock()
	if ok || wait <= 0 {
		return list, ok
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	list, ok = c.lists[dir]
	return list, ok
}

// load reads dir's list now (safefile's time limits bound it) and keeps it.
func (c *commandLists) load(ctx context.Context, dir cmdDir) []engine.Command {
	ctx, cancel := context.WithTimeout(ctx, safefile.DefaultTimeout)
	defer cancel()
	var list []engine.Command
	if src := c.src(dir.machine); src != nil {
		list = src.Commands(ctx, dir.dir)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.lists) >= maxCommandLists {
		clear(c.lists)
	}
	c.lists[dir] = list
	if done := c.loading[dir]; done != nil {
		close(done)
		delete(c.loading, dir)
	}
	return list
}

// menuName is the name a command can have in Telegram's command menu,
// which allows only a–z, 0–9 and "_" (at most 32): lower case, with "-"
// and ":" as "_". ok is false when no such name exists.
func menuName(name string) (string, bool) {
	m := strings.NewReplacer("-", "_", ":", "_").Replace(strings.ToLower(name))
	if len(m) == 0 || len(m) > 32 {
		return "", false
	}
	for i := 0; i < len(m); i++ {
		c := m[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return "", false
		}
	}
	return m, true
}

// findCommand returns the command a name typed in Telegram means: the
// command of that exact name, else the one whose menu name it is (a tap in
// the menu sends "/code_review" for "code-review").
func findCommand(cmds []engine.Command, typed string) (engine.Command, bool) {
	for _, c := range cmds {
		if c.Name == typed {
			return c, true
		}
	}
	for _, c := range cmds {
		if m, ok := menuName(c.Name); ok && m == strings.ToLower(typed) {
			return c, true
		}
	}
	return engine.Command{}, false
}
