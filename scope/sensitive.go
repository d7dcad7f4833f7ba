package scope

import "strings"

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
