package main

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	sshhost "github.com/untether/untether/host/ssh"
)

// HostConfig is one [hosts.NAME]: a machine Claude can work on, reached
// with the system's ssh client (docs/hosts.md).
type HostConfig struct {
	// SSH is the destination as ssh takes it: user@host, host, or an
	// alias of ~/.ssh/config.
	SSH string `toml:"ssh"`
	// SSHArgs go before the destination (-p, -i, -F, -o …).
	SSHArgs []string `toml:"ssh_args"`
	// Claude is the CLI there; "" finds claude in the PATH there.
	Claude string `toml:"claude"`
	// Codex is the codex CLI there (a path, or a name in the PATH there);
	// "" offers no Codex there. [codex] model and env apply there too.
	Codex string `toml:"codex"`
	// WorkingDir and ProjectRoots are paths on that machine.
	WorkingDir   string   `toml:"working_dir"`
	ProjectRoots []string `toml:"project_roots"`
	// MaxLiveSessions bounds the live CLIs there; 0: from its memory.
	MaxLiveSessions int `toml:"max_live_sessions"`
}

// localHost is the name of this machine in [claude] host and /host.
const localHost = "local"

// hostName is what a [hosts.NAME] may be called: a word a chat can type
// after /host.
var hostName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// hostNames are the configured hosts' names, sorted.
func (c *Config) hostNames() []string {
	names := make([]string, 0, len(c.Hosts))
	for n := range c.Hosts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// validateHosts checks [claude] host and every [hosts.NAME]. Paths on a
// host cannot be checked here (doctor does, over ssh); they must be
// absolute, as the shell there would not expand a ~ the bot passes.
func (c *Config) validateHosts(bad func(section, key, format string, args ...any)) {
	if h := c.Claude.Host; h != "" && h != localHost {
		if _, ok := c.Hosts[h]; !ok {
			bad("claude", "host", "%q is neither %q nor a [hosts.NAME] of this file (%s)", h, localHost, strings.Join(c.hostNames(), ", "))
		}
	}
	for _, name := range c.hostNames() {
		h := c.Hosts[name]
		section := "hosts." + name
		if !hostName.MatchString(name) || name == localHost {
			bad(section, "", "a host's name is 1–32 of a–z, 0–9, _ and - (and not %q, this machine's)", localHost)
		}
		switch {
		case strings.TrimSpace(h.SSH) == "":
			bad(section, "ssh", "must name the destination, as the ssh command takes it: user@host, host or an alias of ~/.ssh/config")
		case strings.HasPrefix(h.SSH, "-") || strings.ContainsAny(h.SSH, " \t\r\n"):
			// ssh would take it as an option: a ProxyCommand, say.
			bad(section, "ssh", "%q is not a destination (options go in ssh_args)", h.SSH)
		}
		if err := sshhost.CheckArgs(h.SSHArgs); err != nil {
			bad(section, "ssh_args", "%s", strings.TrimPrefix(err.Error(), "ssh_args: "))
		}
		if h.WorkingDir == "" {
			bad(section, "working_dir", "must be set: the directory a chat starts in on that host")
		}
		for _, p := range slices.Concat([]string{h.WorkingDir}, h.ProjectRoots) {
			if p != "" && !path.IsAbs(p) {
				bad(section, "working_dir", "%q is not an absolute path (paths on a host are taken as written)", p)
			}
		}
		if h.Claude != "" && strings.ContainsAny(h.Claude, "\r\n") {
			bad(section, "claude", "%q is not a path", h.Claude)
		}
		if h.MaxLiveSessions < 0 {
			bad(section, "max_live_sessions", "%d is below 0 (0 takes the default from the host's memory)", h.MaxLiveSessions)
		}
	}
}

// defaultMaxLive is the live CLIs a machine with total bytes of memory
// holds by default: one per GiB (a live CLI holds about 200–400 MB, so
// they take at most 40% of it), at least 2 and at most 32.
func defaultMaxLive(total int64) int {
	const gib = 1 << 30
	return min(32, max(2, int(total/gib)))
}

// describeHost says where a host's sessions run, for logs and doctor.
func describeHost(name string, h HostConfig) string {
	return fmt.Sprintf("%s (ssh %s)", name, strings.Join(append(slices.Clone(h.SSHArgs), h.SSH), " "))
}
