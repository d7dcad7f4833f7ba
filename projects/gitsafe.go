package projects

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/untether/untether/host"
)

// How the bot keeps git from running programs a project names.
//
// Git runs programs in three ways: ones named by config (filters, textconv,
// diff and merge drivers, the pager, fsmonitor, ssh, credential helpers,
// gpg, editors, hooks through core.hooksPath), hooks found in the
// repository, and transports (ssh, remote helpers, a lazy fetch of a
// partial clone). Config given on the command line wins over every config
// file, so each switch below is decided by the bot whatever the
// repository's config, an included file or the owner's global config
// says. What the command line cannot switch off by name (filter drivers:
// a driver is named by the repository's attributes, any name at all) is
// switched off driver by driver, after asking git which drivers its config
// defines (filterOverrides). A folder git would take for a bare repository
// is refused outright (safe.bareRepository=explicit): only a repository
// found through a .git entry is one to the bot. See docs/security.md.

// safeConfig is passed before every command.
var safeConfig = []string{
	"-c", "safe.bareRepository=explicit",
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "core.pager=cat",
	"-c", "core.sshCommand=false",
	"-c", "core.askPass=",
	"-c", "credential.helper=",
	"-c", "protocol.allow=never",
	"-c", "diff.external=",
	"-c", "commit.gpgSign=false",
	"-c", "tag.gpgSign=false",
	"-c", "log.showSignature=false",
	"-c", "submodule.recurse=false",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "core.quotePath=false",
	"-c", "color.ui=false",
	"-c", "diff.noprefix=false",
	"-c", "diff.mnemonicPrefix=false",
}

// safeEnv is added to every command's environment: no pager, no editor,
// no prompt, no lazy fetch, no transport at all, and only the config count
// the bot sets. GIT_ALLOW_PROTOCOL set (to no protocol) is needed beside
// "-c protocol.allow=never": a per-protocol setting in the repository's
// config (protocol.ext.allow=always) wins over protocol.allow, not over
// the variable; and git before 2.39.4 ignores GIT_NO_LAZY_FETCH, so a
// partial clone's lazy fetch would otherwise reach an ext:: command.
// GIT_LFS_SKIP_SMUDGE: git-lfs (trusted when the owner set it up
// globally) would fetch objects on /branch's checkout through transfer
// agents a repository's config can name; the worktree gets the pointer
// files instead (git lfs pull there).
var safeEnv = []string{"GIT_PAGER=cat", "PAGER=cat", "GIT_EDITOR=:", "GIT_SEQUENCE_EDITOR=:",
	"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "GIT_NO_LAZY_FETCH=1", "GIT_ALLOW_PROTOCOL=",
	"GIT_LFS_SKIP_SMUDGE=1", "GIT_CONFIG_COUNT=0"}

// droppedEnv are variables of the bot's environment that would point git at
// another repository, index or config than the one asked about, or run a
// program (GIT_SSH, GIT_EXTERNAL_DIFF).
var droppedEnv = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND",
	"GIT_ATTR_SOURCE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"}

// droppedEnvPrefixes are families of such variables (GIT_CONFIG_KEY_0…).
var droppedEnvPrefixes = []string{"GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_", "GIT_TRACE"}

func droppedVar(name string) bool {
	for _, d := range droppedEnv {
		if name == d {
			return true
		}
	}
	for _, p := range droppedEnvPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return name == "LANG" || name == "LC_ALL" || name == "LANGUAGE"
}

// filterOverrides returns the environment that switches off every filter
// driver git's config defines for dir, except drivers the owner set up
// wholly in their own global or system config file (git-lfs installs
// itself there): those files cannot be written without asking (see
// scope's git config rule). A driver with any key from the repository's
// config, a worktree's config, or an included file is switched off.
// Overrides go through GIT_CONFIG_COUNT/KEY/VALUE, not "-c", so a driver
// name holding "=" cannot be misread.
//
// Only the commands that read or write work-tree files through a filter
// (add, checkout in worktree add) need this; diffs of trees never convert.
func (g Git) filterOverrides(ctx context.Context, dir string) ([]string, error) {
	out, _, err := g.run(ctx, gitCall{dir: dir, okCodes: []int{1},
		args: []string{"config", "--includes", "--null", "--show-scope", "--show-origin", "--get-regexp", `^filter\.`}})
	if err != nil {
		return nil, err
	}
	trusted := ownerConfigFiles(g.env())
	drivers := map[string]bool{} // name → kept
	var order []string
	for rest := out; len(rest) > 0; {
		var scope, origin, entry []byte
		scope, rest, _ = bytes.Cut(rest, []byte{0})
		origin, rest, _ = bytes.Cut(rest, []byte{0})
		entry, rest, _ = bytes.Cut(rest, []byte{0})
		name, _, _ := bytes.Cut(entry, []byte{'\n'})
		// filter.<driver>.<key>: the driver is everything between the
		// first and the last dot.
		key := string(name)
		first, last := strings.Index(key, "."), strings.LastIndex(key, ".")
		if first < 0 || last <= first {
			continue
		}
		driver := key[first+1 : last]
		file, isFile := strings.CutPrefix(string(origin), "file:")
		owners := (string(scope) == "global" || string(scope) == "system") && isFile && trusted[filepath.Clean(file)]
		kept, seen := drivers[driver]
		if !seen {
			order = append(order, driver)
			kept = true
		}
		drivers[driver] = kept && owners
	}
	var env []string
	n := 0
	for _, d := range order {
		if drivers[d] {
			continue
		}
		for _, kv := range [][2]string{{"clean", ""}, {"smudge", ""}, {"process", ""}, {"required", "false"}} {
			env = append(env, "GIT_CONFIG_KEY_"+strconv.Itoa(n)+"=filter."+d+"."+kv[0], "GIT_CONFIG_VALUE_"+strconv.Itoa(n)+"="+kv[1])
			n++
		}
	}
	return append(env, "GIT_CONFIG_COUNT="+strconv.Itoa(n)), nil
}

// ownerConfigFiles are the global and system config files git reads for
// the environment env: the owner's own, outside any project.
func ownerConfigFiles(env []string) map[string]bool {
	get := func(name string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], name+"="); ok {
				return v
			}
		}
		return ""
	}
	files := map[string]bool{"/etc/gitconfig": true, "/usr/local/etc/gitconfig": true, "/opt/homebrew/etc/gitconfig": true}
	for _, v := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"} {
		if f := get(v); f != "" {
			files[filepath.Clean(f)] = true
		}
	}
	if home := get("HOME"); home != "" {
		files[filepath.Join(home, ".gitconfig")] = true
		xdg := get("XDG_CONFIG_HOME")
		if xdg == "" {
			xdg = filepath.Join(home, ".config")
		}
		files[filepath.Join(xdg, "git", "config")] = true
	}
	return files
}

// env is the environment git starts from: Env, or by default the bot's
// own on this machine and nothing of it on another (the host's own login
// environment applies there).
func (g Git) env() []string {
	if g.Env == nil {
		if host.IsLocal(g.Host) {
			return os.Environ()
		}
		return []string{}
	}
	return g.Env
}
