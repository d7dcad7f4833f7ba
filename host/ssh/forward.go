package ssh

import (
	"context"
	"fmt"
	"os/exec"
	"path"

	"github.com/untether/untether/token"
)

// AgentPath is where the bot's binary lies on the machine (placed there
// when missing): the send_file tool's MCP server runs it there as
// `untether mcp`.
func (h *Host) AgentPath(ctx context.Context) (string, error) { return h.agentPath(ctx) }

// ForwardSocket makes a unix socket on the machine that leads to local, a
// socket of the bot's, over the multiplexed connection (`ssh -O forward
// -R`), and returns its path there: in the agent's 0700 folder, made
// 0600 by sshd (StreamLocalBindMask). A forward lives as long as the
// connection; asked again, it is made again when its socket is gone.
func (h *Host) ForwardSocket(ctx context.Context, local string) (string, error) {
	agent, err := h.agentPath(ctx)
	if err != nil {
		return "", err
	}
	if err := h.Check(ctx); err != nil { // the connection the forward rides on
		return "", err
	}
	h.mu.Lock()
	remote := h.forwards[local]
	h.mu.Unlock()
	if remote != "" {
		if _, err := h.Lstat(ctx, remote); err == nil {
			return remote, nil
		}
	}
	remote = path.Join(path.Dir(agent), "bot-"+token.New()[:12]+".sock")
	args := []string{"-O", "forward", "-R", remote + ":" + local,
		"-o", "ControlPath=" + h.o.ControlDir + "/%C", "-o", "StreamLocalBindUnlink=yes"}
	args = append(append(args, h.o.Args...), "--", h.o.Dest)
	c := exec.CommandContext(ctx, h.o.SSH, args...)
	c.Env = h.baseEnv
	if out, err := c.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: forwarding the send_file socket: %w: %s", h.o.Name, err, lastLine(string(out)))
	}
	h.mu.Lock()
	h.forwards[local] = remote
	h.mu.Unlock()
	return remote, nil
}

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
