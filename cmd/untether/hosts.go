package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/filesend"
	"github.com/untether/untether/host"
	sshhost "github.com/untether/untether/host/ssh"
	"github.com/untether/untether/projects"
	"github.com/untether/untether/runner/claudefiles"
)

// sshControlDir is where a host's multiplexed connection keeps its
// socket: a short path (ssh's socket name must fit a unix socket's ~104
// bytes, which the state folder may not leave), in the user's runtime
// folder or a folder of theirs in the temporary one, named by the state
// file and the host (two bots never share one). host/ssh makes it 0700
// and refuses one another user made.
func sshControlDir(cfg *Config, name string) string {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base != "" {
		base = filepath.Join(base, "untether")
	} else {
		base = filepath.Join(os.TempDir(), fmt.Sprintf("untether-%d", os.Getuid()))
	}
	sum := sha256.Sum256([]byte(cfg.State.Path + "\x00" + name))
	return filepath.Join(base, hex.EncodeToString(sum[:6]))
}

// remoteMachines are the [hosts.NAME] machines: an ssh host each, the
// Claude Code engine started there, git there. Nothing connects yet; a
// host that cannot be reached is told to a chat when it is used. The
// returned hosts are closed when the bot stops.
func remoteMachines(ctx context.Context, cfg *Config, files *filesend.Server, log *slog.Logger) ([]chat.MachineConfig, []*sshhost.Host, error) {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil && len(cfg.Hosts) > 0 {
		return nil, nil, fmt.Errorf("finding the untether binary (the agent hosts run): %w", err)
	}
	var out []chat.MachineConfig
	var hosts []*sshhost.Host
	for _, name := range cfg.hostNames() {
		hc := cfg.Hosts[name]
		h, err := newSSHHost(cfg, name, hc, self, log)
		if err != nil {
			return nil, nil, err
		}
		hosts = append(hosts, h)
		hlog := log.With("host", name)
		sock := &hostSocket{h: h}
		if files != nil {
			sock.local = files.Socket()
		}
		at := enginePlace{Name: name, Host: h, Remote: &hc, SSH: h, Log: hlog}
		if files != nil {
			// After a dropped connection a held Claude's send_file needs
			// the socket forwarded again.
			at.Relinked = func(ctx context.Context) {
				if _, err := sock.renew(ctx); err != nil {
					hlog.Warn("send_file of claude there may fail: the socket is not forwarded again", "err", err)
				}
			}
		}
		eng, err := newEngine(cfg, at)
		if err != nil {
			return nil, nil, err
		}
		more, err := moreEngines(cfg, at)
		if err != nil {
			return nil, nil, err
		}
		var engName, defEngine string
		if more != nil {
			engName, defEngine = engineName(cfg), machineDefault(cfg, otherEngines(cfg, at))
		}
		live, starts := remoteLimits(ctx, hc, h, hlog)
		out = append(out, chat.MachineConfig{
			Name: name, Engine: eng.Engine, Host: h, Engines: more, EngineName: engName, DefaultEngine: defEngine,
			Git:     projects.Git{Timeout: cfg.Projects.GitTimeout, Host: h},
			WorkDir: hc.WorkingDir, ProjectRoots: hc.ProjectRoots,
			UploadDir: hostUploadDir(h),
			MaxLive:   live,
			MaxStarts: starts,
			Probe:     eng.Probe,
			Grant:     sock.grant(files),
			Regrant:   sock.regrant(files),
		})
		log.Info("host configured", "host", describeHost(name, hc), "working_dir", hc.WorkingDir)
	}
	return out, hosts, nil
}

// newSSHHost is the host of [hosts.NAME], its control socket in the
// folder sshControlDir names; when that folder was taken by another user
// (a shared /tmp, no XDG_RUNTIME_DIR), in a new folder of a random name
// made for it alone, so another user cannot keep the bot from starting.
func newSSHHost(cfg *Config, name string, hc HostConfig, self string, log *slog.Logger) (*sshhost.Host, error) {
	o := sshhost.Options{Name: name, Dest: hc.SSH, Args: hc.SSHArgs, ControlDir: sshControlDir(cfg, name), Agent: self,
		StripValues: cfg.BotSecrets()}
	h, err := sshhost.New(o)
	if !errors.Is(err, sshhost.ErrControlDir) {
		return h, err
	}
	dir, terr := os.MkdirTemp("", "untether-")
	if terr != nil {
		return nil, errors.Join(err, terr)
	}
	log.Warn("control folder refused; using a new one", "host", name, "err", err, "dir", dir)
	o.ControlDir = dir
	return sshhost.New(o)
}

// hostUploadDir is where users' files land on the host: in its user's
// ~/.cache/untether/uploads (not a shared /tmp, where another user of the
// machine could make the folder first), a folder per chat. "" when the
// host's HOME is not known at start: files sent for that host are then
// refused with a message, never written elsewhere.
func hostUploadDir(h host.Host) string {
	home := h.Getenv("HOME")
	if home == "" {
		return ""
	}
	return home + "/.cache/untether/uploads"
}

// hostClaudeDir is where Claude Code keeps its files on the host: its
// CLAUDE_CONFIG_DIR, or ~/.claude there, as the host says at start.
func hostClaudeDir(h host.Host) string {
	home := h.Getenv("HOME")
	if home == "" {
		// Not reached at start: no store (/sessions lists the chat's own),
		// never this machine's ~/.claude taken for the host's.
		return ""
	}
	return claudefiles.ConfigDir([]string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + h.Getenv("CLAUDE_CONFIG_DIR")})
}

// remoteLimits are the host's caps, as it answers at start: live
// processes configured or from its memory (else 4), starts in flight from
// its cores (else this machine's default), each with a line in the log.
// Both questions share one probeWait, so a host that does not answer
// delays the start once.
func remoteLimits(ctx context.Context, hc HostConfig, h *sshhost.Host, log *slog.Logger) (live, starts int) {
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	return maxLive(ctx, hc.MaxLiveSessions, h, log), maxStarts(ctx, h, log)
}

// maxHostCores is more cores than any host has: an answer above it is
// taken for nonsense, not for "no bound".
const maxHostCores = 4096

// maxStarts bounds the agent starts in flight on h by its cores (a start
// is CPU-bound: docs/performance.md); a host that cannot tell gets this
// machine's default.
func maxStarts(ctx context.Context, h host.Host, log *slog.Logger) int {
	c, ok := h.(host.CPUs)
	if !ok {
		return chat.DefaultMaxStarts()
	}
	n, err := c.NumCPU(ctx)
	if err == nil && (n < 1 || n > maxHostCores) {
		err = fmt.Errorf("the host says %d cores", n)
	}
	if err != nil {
		n = chat.DefaultMaxStarts()
		log.Warn("could not tell the host's cores: starts there bounded by this machine's", "max_starts", n, "err", err)
		return n
	}
	log.Info("agent starts in flight bounded by the host's cores", "max_starts", n)
	return n
}

// probeWait bounds a look at a host when the bot starts.
const probeWait = 20 * time.Second

// probeHost connects and asks the CLI there for its version: what /host
// and doctor show.
func probeHost(ctx context.Context, h *sshhost.Host, claude string) (string, error) {
	if err := h.Check(ctx); err != nil {
		return "", err
	}
	v, err := versionThere(ctx, h, claude)
	return shortClaudeVersion(v), err
}

// versionThere is what `bin --version` prints on h, trimmed.
func versionThere(ctx context.Context, h *sshhost.Host, claude string) (string, error) {
	// A version is one short line; a program there that will not stop
	// talking is kept to a few KB, not to the bot's memory.
	out, errb := host.Capped{Max: 4096}, host.Capped{Max: 4096}
	p, err := h.Start(ctx, host.Cmd{Path: claude, Args: []string{"--version"}, Stdout: &out, Stderr: &errb})
	if err != nil {
		return "", fmt.Errorf("%s there: %w", claude, err)
	}
	ex, err := p.Wait()
	if err != nil {
		return "", err
	}
	if ex.Code != 0 {
		return "", fmt.Errorf("%s --version there: %s: %s", claude, ex, strings.TrimSpace(errb.String()))
	}
	if out.Cut {
		return "", fmt.Errorf("%s --version there: over %d bytes of output, not a version", claude, out.Max)
	}
	return strings.TrimSpace(out.String()), nil
}

// warnHostPrivateInReach says at start, as for this machine's files, which
// folders a host keeps for the bot lie where Claude Code there reads
// without asking. A host that does not answer is told of when used.
func warnHostPrivateInReach(ctx context.Context, cfg *Config, hosts []*sshhost.Host, log *slog.Logger) {
	for i, name := range cfg.hostNames() {
		pctx, cancel := context.WithTimeout(ctx, probeWait)
		paths, err := hostPrivateInReach(pctx, hosts[i], cfg.Hosts[name])
		cancel()
		if err != nil {
			log.Info("could not tell whether the bot's folders on the host lie where Claude Code reads without asking", "host", name, "err", err)
		}
		for _, p := range paths {
			log.Warn("a private folder of the bot lies where Claude Code reads without asking (the host's working_dir or project_roots); "+
				"untether's path rule cannot guard reads the CLI never asks about: narrow them there to project directories",
				"host", name, "path", p)
		}
	}
}

// hostPrivateInReach returns the folders h keeps for the bot (host.Keeper:
// ~/.cache/untether there, with every chat's journal and the sessions'
// MCP secrets) that its working_dir or project_roots hold there.
func hostPrivateInReach(ctx context.Context, h host.Host, hc HostConfig) ([]string, error) {
	dirs, err := host.PrivateDirs(ctx, h)
	if err != nil {
		return nil, fmt.Errorf("the bot's folders there: %w", err)
	}
	return inReach(h, dirs, slices.Concat([]string{hc.WorkingDir}, hc.ProjectRoots)), nil
}
