package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"

	"github.com/untether/untether/host"
	sshhost "github.com/untether/untether/host/ssh"
)

// hostWait bounds each host's checks (a connection, the agent's copy, the
// CLI's version).
const hostWait = time.Minute

// checkHosts checks every [hosts.NAME], one line each: ssh reaches it (the
// host key known), the bot's agent runs there (its OS and architecture),
// the CLI answers there (Codex too, with [hosts.NAME] codex), the
// directories exist there.
func (d *doctor) checkHosts(ctx context.Context) []check {
	var out []check
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	for _, name := range d.cfg.hostNames() {
		hc := d.cfg.Hosts[name]
		label := "host " + name
		if err != nil {
			out = append(out, fail(label, "cannot find the untether binary to run there: "+err.Error(), "run untether from its installed path"))
			continue
		}
		out = append(out, d.checkHost(ctx, label, name, hc, self))
	}
	return out
}

func (d *doctor) checkHost(ctx context.Context, label, name string, hc HostConfig, self string) check {
	ctx, cancel := context.WithTimeout(ctx, hostWait)
	defer cancel()
	// A connection of its own ("+" is in no host's name): its Close ends
	// its master, which must not be a running bot's.
	h, err := sshhost.New(sshhost.Options{Name: name, Dest: hc.SSH, Args: hc.SSHArgs, ControlDir: sshControlDir(d.cfg, name+"+doctor"), Agent: self})
	if err != nil {
		return fail(label, err.Error(), "fix [hosts."+name+"]")
	}
	defer h.Close()
	if err := h.Check(ctx); err != nil {
		fix := "check that `ssh " + describeArgs(hc) + "` works from this user's shell without a question"
		if errors.Is(err, host.ErrUnreachable) {
			fix = "the message says what to do; then `ssh " + describeArgs(hc) + " true` must work without a question"
		}
		return fail(label, err.Error(), fix)
	}
	claude := hc.Claude
	if claude == "" {
		claude = "claude"
	}
	version, err := probeHost(ctx, h, claude)
	if err != nil {
		return fail(label, "reached, but Claude Code does not run there: "+err.Error(),
			"install Claude Code there, or set [hosts."+name+"] claude to its full path there")
	}
	for _, dir := range slices.Concat([]string{hc.WorkingDir}, hc.ProjectRoots) {
		fi, err := h.Stat(ctx, dir)
		if err != nil || !fi.IsDir() {
			return fail(label, fmt.Sprintf("reached, Claude Code %s, but %s is not a directory there", version, dir),
				"create it there, or fix [hosts."+name+"] working_dir / project_roots")
		}
	}
	codex := ""
	if hc.Codex != "" && d.cfg.Codex.Enabled() {
		v, err := versionThere(ctx, h, hc.Codex)
		if err != nil {
			return fail(label, fmt.Sprintf("reached, Claude Code %s, but Codex does not run there: %v", version, err),
				"install Codex there (npm install -g @openai/codex), or set [hosts."+name+"] codex to its full path there")
		}
		codex = "; Codex " + v + " there"
	}
	return pass(label, "reached over ssh; Claude Code %s there%s; %s exists%s", version, codex, hc.WorkingDir, heldThere(ctx, h))
}

// heldThere counts the folders of the holders on the host (durable
// sessions held there, docs/durability.md), as "; N held there"; "" when
// none or not known. A holder that was killed leaves its folder: it is
// counted too.
func heldThere(ctx context.Context, h *sshhost.Host) string {
	agent, err := h.AgentPath(ctx)
	if err != nil {
		return ""
	}
	ents, err := h.ReadDir(ctx, path.Dir(agent)+"/hold")
	if err != nil || len(ents) == 0 {
		return ""
	}
	return fmt.Sprintf("; %s held there (in %s)", count(len(ents), "Claude process"), path.Dir(agent)+"/hold")
}

// describeArgs is the ssh command line of a host, for a fix to try.
func describeArgs(hc HostConfig) string {
	s := ""
	for _, a := range hc.SSHArgs {
		s += a + " "
	}
	return s + hc.SSH
}
