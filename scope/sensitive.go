package scope

import (
	"path/filepath"
	"strings"
)

// Places where a written file is run, or trusted, by the tools around a
// project: Claude Code's settings, hooks, commands and MCP servers
// (.claude/, .mcp.json, .claude.json), git's hooks and config (.git/,
// .gitmodules, .gitconfig), shell start-up files, npm's config (it can run
// scripts and redirect installs), ssh keys and config, editor tasks
// (.vscode/, .idea/) and direnv's .envrc. A write there can make code run
// with the owner's rights the next time something starts, so CheckWrite
// never calls such a path inside, even in the working directory. Reading
// them is not affected. Names are compared without case: on a
// case-insensitive file system .GIT is .git.
var sensitiveNames = map[string]bool{
	".claude": true, ".git": true, ".ssh": true, ".vscode": true, ".idea": true,
	".mcp.json": true, ".claude.json": true, ".gitmodules": true, ".gitconfig": true,
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".bash_logout": true, ".profile": true,
	".zshrc": true, ".zshenv": true, ".zprofile": true, ".zlogin": true,
	".npmrc": true, ".envrc": true,
}

// sensitive reports whether some part of the absolute path p is a
// sensitive name: the file itself, or a folder it is in.
func sensitive(p string) bool {
	for _, part := range split(p) {
		if sensitiveNames[strings.ToLower(part)] {
			return true
		}
	}
	return false
}

// sensitiveWrite reports whether writing the absolute path p could change
// what a program run later does: a sensitive name (see sensitiveNames), git's
// own configuration outside a repository (ownerConfigPlace), or a file in a
// git directory whatever its name (inGitDir).
func (r Rule) sensitiveWrite(p string) bool {
	return sensitive(p) || r.ownerConfigPlace(p) || r.inGitDir(p)
}

// ownerConfigPlace reports whether p is, or is in, the target of a
// sensitive name in the home folder (~/.bashrc, ~/.ssh, ~/.gitconfig… as
// links into a project), or one of the places git reads its global
// configuration from (config, attributes, ignore):
// $XDG_CONFIG_HOME/git, ~/.config/git and $GIT_CONFIG_GLOBAL or
// $GIT_CONFIG_SYSTEM when set, and ~/.gitconfig (a sensitive name, but its
// target when it is a link is not). Read from the environment at each
// check, as git does at each start; each place, and each file git reads in
// a config folder, is compared by its name and by its target when it is a
// link, without case. The environment and the links are the rule's host's.
func (r Rule) ownerConfigPlace(p string) bool {
	h := r.On()
	var places, dirs []string
	if home := h.Getenv("HOME"); home != "" {
		dirs = append(dirs, filepath.Join(home, ".config", "git"))
		// A dotfiles setup links ~/.gitconfig, ~/.bashrc, ~/.ssh… into a
		// project: their targets are the owner's start-up files and
		// config (the names alone are sensitive). Compared by target below.
		for name := range sensitiveNames {
			places = append(places, filepath.Join(home, name))
		}
	}
	if xdg := h.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(xdg) {
		dirs = append(dirs, filepath.Join(xdg, "git"))
	}
	for _, d := range dirs {
		places = append(places, d)
		// Each file git reads there may itself be a link into a project.
		for _, f := range []string{"config", "attributes", "ignore"} {
			places = append(places, filepath.Join(d, f))
		}
	}
	for _, v := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"} {
		if f := h.Getenv(v); filepath.IsAbs(f) {
			places = append(places, filepath.Clean(f))
		}
	}
	for _, pl := range places {
		if within(pl, p, true) {
			return true
		}
		if rl, err := h.ResolveLinks(ctx, pl); err == nil && within(rl, p, true) {
			return true
		}
	}
	return false
}

// inGitDir reports whether p lies in a folder git would take for a git
// directory (a repository's .git under any name, a bare repository), or one
// that writing p would make nearly one. Git needs HEAD, objects/ and refs/;
// a folder that has, counting what p adds, two of those, or one and a
// config file, counts, so the last file that completes a planted bare
// repository is always asked. A commondir file stands for objects/ and
// refs/ (git looks for them in the folder it names, as in a worktree's git
// directory), and config.worktree is a config file too (git reads it with
// extensions.worktreeConfig).
func (r Rule) inGitDir(p string) bool {
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		rel, err := filepath.Rel(d, p)
		if err == nil && r.gitLike(d, rel) {
			return true
		}
		if d == "/" || d == "." || d == filepath.Dir(d) {
			return false
		}
	}
}

// gitLike says whether folder d holds git directory markers, counting the
// one that writing rel (a path below d) would create.
func (r Rule) gitLike(d, rel string) bool {
	first, _, below := strings.Cut(rel, "/")
	has := func(name string, dir bool) bool {
		if below && first == name && dir || !below && first == name && !dir {
			return true
		}
		fi, err := r.On().Stat(ctx, filepath.Join(d, name))
		return err == nil && fi.IsDir() == dir
	}
	kinds := 0
	for _, m := range []struct {
		name string
		dir  bool
	}{{"HEAD", false}, {"objects", true}, {"refs", true}} {
		if has(m.name, m.dir) {
			kinds++
		}
	}
	if has("commondir", false) {
		kinds += 2
	}
	return kinds >= 2 || kinds == 1 && (has("config", false) || has("config.worktree", false))
}
