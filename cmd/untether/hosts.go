package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/untether/untether/host"
	sshhost "github.com/untether/untether/host/ssh"
	"github.com/untether/untether/projects"
	"github.com/untether/untether/runner"
	"github.com/untether/untether/runner/claudefiles"
	"github.com/untether/untether/telegram"
)

// sshControlDir is where the hosts' multiplexed connections keep their
// sockets: next to the state file, 0700 (host/ssh makes it so).
func sshControlDir(cfg *Config) string {
	return strings.TrimSuffix(mcpDir(cfg), ".mcp") + ".ssh"
}

// remoteMachines are the [hosts.NAME] machines: an ssh host each, the
// Claude Code engine started there, git there. Nothing connects yet; a
// host that cannot be reached is told to a chat when it is used. The
// returned hosts are closed when the bot stops.
func remoteMachines(ctx context.Context, cfg *Config, log *slog.Logger) ([]telegram.Machine, []*sshhost.Host, error) {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil && len(cfg.Hosts) > 0 {
		return nil, nil, fmt.Errorf("finding the untether binary (the agent hosts run): %w", err)
	}
	var out []telegram.Machine
	var hosts []*sshhost.Host
	for _, name := range cfg.hostNames() {
		hc := cfg.Hosts[name]
		h, err := sshhost.New(sshhost.Options{Name: name, Dest: hc.SSH, Args: hc.SSHArgs,
			ControlDir: filepath.Join(sshControlDir(cfg), name), Agent: self})
		if err != nil {
			return nil, nil, err
		}
		hosts = append(hosts, h)
		hlog := log.With("host", name)
		eng := remoteEngine(cfg, name, hc, h, hlog)
		out = append(out, telegram.Machine{
			Name: name, Engine: eng, Host: h, CPU: h,
			Git:     projects.Git{Timeout: cfg.Projects.GitTimeout, Host: h},
			WorkDir: hc.WorkingDir, ProjectRoots: hc.ProjectRoots,
			// In the host user's own temporary folder there, a folder per chat.
			UploadDir: "/tmp/untether-uploads-" + name,
			MaxLive:   remoteMaxLive(ctx, hc, h, hlog),
			Probe:     func(ctx context.Context) (string, error) { return probeHost(ctx, h, eng.Base.Binary) },
		})
		log.Info("host configured", "host", describeHost(name, hc), "working_dir", hc.WorkingDir)
	}
	return out, hosts, nil
}

// remoteEngine is Claude Code on the host: the CLI there, with the
// owner's [claude] choices but none of this machine's environment (the
// host's own login, HOME and PATH apply there; see host/ssh Start) and no
// add_dirs (paths of this machine).
func remoteEngine(cfg *Config, name string, hc HostConfig, h *sshhost.Host, log *slog.Logger) *runner.Engine {
	o := runnerOptions(cfg, log)
	o.Host = h
	o.Env = nil
	o.AddDirs = nil
	o.WorkDir = hc.WorkingDir
	o.Binary = hc.Claude
	if o.Binary == "" {
		o.Binary = "claude"
	}
	return &runner.Engine{Base: o, Files: claudefiles.Files{ConfigDir: hostClaudeDir(h), Host: h}}
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

// remoteMaxLive is the host's cap: configured, or from its memory when it
// answers at start (else 4, and a line in the log).
func remoteMaxLive(ctx context.Context, hc HostConfig, h *sshhost.Host, log *slog.Logger) int {
	if hc.MaxLiveSessions > 0 {
		return hc.MaxLiveSessions
	}
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	return maxLive(ctx, 0, h, log)
}

// probeWait bounds a look at a host when the bot starts.
const probeWait = 20 * time.Second

// probeHost connects and asks the CLI there for its version: what /host
// and doctor show.
func probeHost(ctx context.Context, h *sshhost.Host, claude string) (string, error) {
	if err := h.Check(ctx); err != nil {
		return "", err
	}
	var out, errb bytes.Buffer
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
	return shortClaudeVersion(strings.TrimSpace(out.String())), nil
}
