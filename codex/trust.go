package codex

import (
	"path"
	"path/filepath"

	"github.com/untether/untether/host"
)

// untrustedProjects is the thread/start and thread/resume override that
// keeps a project's own .codex/config.toml (its MCP servers, its
// shell_environment_policy, its hooks and exec policies) from loading:
// `projects.<dir>.trust_level = "untrusted"` for the working directory
// and every folder above it.
//
// Measured with 0.171.0 (docs/protocol-codex.md "A project's own
// .codex/config.toml"): Codex loads those layers when the folder is
// trusted, writes trust_level = "trusted" for the project's root (a git
// repository's top, not the working directory) when a thread starts, and
// counts a trusted parent too; an "untrusted" entry in the thread's
// config, for the directory and its git root, wins over all of these and
// nothing is written. Every ancestor is named because which folder Codex
// takes for the root depends on the owner's project_root_markers, and a
// trust the bot's earlier threads wrote may sit on any of them.
func untrustedProjects(o Options) map[string]any {
	if o.WorkDir == "" {
		return nil
	}
	out := map[string]any{}
	// up names dir and every folder above it; parent is path.Dir on
	// another machine (slash-separated, not resolvable here).
	up := func(dir string, parent func(string) string) {
		for d := dir; ; d = parent(d) {
			out[d] = map[string]any{"trust_level": "untrusted"}
			if parent(d) == d {
				return
			}
		}
	}
	if _, local := o.Host.(host.Local); !local && o.Host != nil {
		up(path.Clean(o.WorkDir), path.Dir)
		return out
	}
	up(filepath.Clean(o.WorkDir), filepath.Dir)
	// Codex may key a folder reached through a link by either name.
	if real, err := filepath.EvalSymlinks(o.WorkDir); err == nil {
		up(real, filepath.Dir)
	}
	return out
}
