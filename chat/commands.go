package chat

import (
	"context"
	"sync"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/safefile"
)

// CommandLists holds, per working directory, the agent's own commands
// there (the engine's CommandSource: Claude Code's custom commands). The files are the project's, and
// anyone who can write the project can put a FIFO among them, so the
// polling loop never reads them: it asks Cached, which answers from memory
// and, on a miss, starts one background read of that directory. The list
// is read afresh, off the loop, when a session starts (the frontend's menu) and
// before a command's prompt is sent (the session's goroutine).
type CommandLists struct {
	src     func(machine string) engine.CommandSource // the machine's engine's, asked at each read; nil: none
	mu      sync.Mutex
	lists   map[Dir][]engine.Command
	loading map[Dir]chan struct{} // closed when the read ends
}

// Dir is a directory on a machine: the same path on two machines is
// two projects.
type Dir struct{ Machine, Path string }

// maxCommandLists bounds the directories remembered; past it, the lists
// are forgotten and read again when needed.
const maxCommandLists = 256

func newCommandLists(src func(machine string) engine.CommandSource) *CommandLists {
	return &CommandLists{src: src, lists: map[Dir][]engine.Command{}, loading: map[Dir]chan struct{}{}}
}

// Cached returns dir's list as last read, without touching the disk. On a
// miss it starts a background read and waits for it at most wait; ok is
// false when the list is still unknown.
func (c *CommandLists) Cached(dir Dir, wait time.Duration) (list []engine.Command, ok bool) {
	c.mu.Lock()
	list, ok = c.lists[dir]
	done := c.loading[dir]
	if !ok && done == nil {
		done = make(chan struct{})
		c.loading[dir] = done
		go c.Load(context.Background(), dir)
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

// Load reads dir's list now (safefile's time limits bound it) and keeps it.
func (c *CommandLists) Load(ctx context.Context, dir Dir) []engine.Command {
	ctx, cancel := context.WithTimeout(ctx, safefile.DefaultTimeout)
	defer cancel()
	var list []engine.Command
	if src := c.src(dir.Machine); src != nil {
		list = src.Commands(ctx, dir.Path)
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

// Commands are the agent's own commands per directory (CommandLists).
func (c *Core) Commands() *CommandLists { return c.commands }
