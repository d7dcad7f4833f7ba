package ssh

import (
	"context"
	"fmt"
	"path"
	"regexp"

	"github.com/untether/untether/token"
)

// AgentPath is where the bot's binary lies on the machine (placed there
// when missing): the send_file tool's MCP server runs it there as
// `untether mcp`.
func (h *Host) AgentPath(ctx context.Context) (string, error) { return h.agentPath(ctx) }

// forward is a socket made there, on the connection of one master.
type forward struct {
	remote string
	master string // the master's pid (ssh -O check)
}

// ForwardSocket makes a unix socket on the machine that leads to local, a
// socket of the bot's, over the multiplexed connection (`ssh -O forward
// -R`), and returns its path there: in the agent's 0700 folder, made
// 0600 by sshd (StreamLocalBindMask). A forward lives as long as the
// connection's master; asked again after the master changed, it is made
// again (under a new name: the old socket file outlives its forward).
func (h *Host) ForwardSocket(ctx context.Context, local string) (string, error) {
	agent, err := h.agentPath(ctx)
	if err != nil {
		return "", err
	}
	if err := h.Check(ctx); err != nil { // the connection the forward rides on
		return "", err
	}
	master, err := h.masterPid(ctx)
	if err != nil {
		return "", err
	}
	h.mu.Lock()
	f := h.forwards[local]
	h.mu.Unlock()
	if f.remote != "" && f.master == master {
		return f.remote, nil
	}
	if f.remote != "" {
		_ = h.Remove(ctx, f.remote) // its forward went with its master
	}
	remote := path.Join(path.Dir(agent), "bot-"+token.New()[:12]+".sock")
	if _, err := h.control(ctx, "-O", "forward", "-o", "StreamLocalBindUnlink=yes", "-R", remote+":"+local); err != nil {
		return "", fmt.Errorf("forwarding the send_file socket: %w", err)
	}
	h.mu.Lock()
	h.forwards[local] = forward{remote: remote, master: master}
	h.mu.Unlock()
	return remote, nil
}

// masterPid is the pid of the multiplexed connection's master, which
// `ssh -O check` says as "Master running (pid=N)".
func (h *Host) masterPid(ctx context.Context) (string, error) {
	out, err := h.control(ctx, "-O", "check")
	if err != nil {
		return "", err
	}
	m := masterRE.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("%s: ssh -O check said %q", h.o.Name, lastLine(string(out)))
	}
	return string(m[1]), nil
}

var masterRE = regexp.MustCompile(`\(pid=(\d+)\)`)

// PutPrivate writes data to a new file (0600) in the agent's folder on the
// machine and returns its path.
func (h *Host) PutPrivate(ctx context.Context, pattern string, data []byte) (string, error) {
	agent, err := h.agentPath(ctx)
	if err != nil {
		return "", err
	}
	w, err := h.CreateTemp(ctx, path.Dir(agent), pattern)
	if err != nil {
		return "", err
	}
	if _, err := w.Write(data); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		_ = h.Remove(ctx, w.Name())
		return "", err
	}
	return w.Name(), nil
}
