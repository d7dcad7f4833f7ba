// Package scope is the bot's one rule for the file system: whether a path
// lies inside what a session may touch without asking. A path is inside
// when, with links followed, it lies under the session's working
// directory, the chat's upload folder or a directory the owner listed, and
// not in a forbidden place (the bot's own state and config files, the
// upload folders of other chats). Paths are those of the machine Claude
// works on, and links are resolved there (Rule.Host). It imports only
// host.
package scope

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/untether/untether/host"
)

// Rule says which paths of one session are inside. Roots and forbidden
// paths are resolved (links followed) on every Check, so a link swapped
// after the bot started is seen as it is now.
type Rule struct {
	// WorkDir is the session's working directory: relative paths are
	// resolved against it, and it is an allowed root. Empty means relative
	// paths cannot be placed, so they are never inside.
	WorkDir string
	// WorkDirResolved says WorkDir is the directory, links resolved, that
	// the session's process was started in. The process keeps that
	// directory whatever later happens to its name, so when WorkDir no
	// longer resolves to itself (it, or a folder above it, was replaced by
	// a link) it is no longer a root and relative paths are not placed: a
	// name that now leads to $HOME must not make $HOME inside.
	WorkDirResolved bool
	// Roots are further allowed roots: the chat's upload folder, the
	// owner's add_dirs.
	Roots []string
	// Forbidden are files or folders that are never inside, even under a
	// root. The most specific entry decides: a root that lies deeper inside
	// a forbidden folder is allowed (the chat's own folder inside the
	// uploads root), a forbidden path deeper inside a root is not (the
	// state file inside the working directory), and on a tie the path is
	// forbidden. The folders the Host keeps for the bot (host.Keeper) are
	// added to them at each check.
	Forbidden []string
	// Host is the machine the paths are on: links are resolved, files
	// looked at and "~" expanded there. Nil: this machine (host.Local).
	Host host.Host
}

// On is the machine the rule's paths are on.
func (r Rule) On() host.Host { return host.Or(r.Host) }

// ctx is the context of a check's calls to its host. Check takes none
// (its callers decide at once, on a path in hand); a host that can hang
// (a remote one) bounds each of its calls itself.
var ctx = context.Background()

// Verdict is the answer for one path.
type Verdict struct {
	// Path is the path as the check saw it: absolute, cleaned, links
	// followed. When it could not be resolved it is the path as given.
	Path string
	// Inside reports whether the path may be touched without asking.
	Inside bool
	// Forbidden reports that the path is in a forbidden place (the reason
	// it is not inside, although a root holds it).
	Forbidden bool
	// Sensitive reports, for CheckWrite, a path a root holds that is not
	// inside because files there are run or trusted (.git/hooks,
	// .claude/settings.json, ~/.bashrc…).
	Sensitive bool
	// Invisible reports a path holding an invisible or direction-changing
	// character (see invisible): never inside, wherever it would lead.
	Invisible bool
}

// Check resolves path and says whether it is inside. A path holding an
// invisible character is not (see invisible). Every way the path could be
// read must be inside: the raw text and the text with surrounding spaces
// trimmed (Claude Code trims), each cleaned lexically (as Claude
// Code's path.resolve does) and also resolved with ".." taken physically
// (as the kernel would take an uncleaned path). A path that cannot be
// resolved at all is not inside.
func (r Rule) Check(path string) Verdict { return r.checkForms(path, false) }

// CheckWrite is Check for a path about to be written: a path that would be
// inside is not when it, or a folder it is in, is a place where files are
// run or trusted (see sensitiveNames), by its name as given or as resolved.
func (r Rule) CheckWrite(path string) Verdict { return r.checkForms(path, true) }

// InRoots is the rule for a directory the owner's roots must hold
// (project_roots: /cwd, /branch, a chat's directory when its session
// starts, [projects] worktrees_dir): Check for a rule of roots alone, with
// no working directory and nothing forbidden. So a relative path is never
// inside, an empty or relative root holds nothing, links, "~" and ".." are
// taken as Check takes them, and a path that does not exist yet is placed
// by its existing parent.
// It is this machine's; Rule{Host: h, Roots: roots}.Check(path) is the
// same on another, where the folders that host keeps for the bot
// (host.Keeper) are forbidden all the same: no chat works in them.
func InRoots(path string, roots []string) Verdict { return Rule{Roots: roots}.Check(path) }

func (r Rule) checkForms(path string, write bool) Verdict {
	if invisible(path) {
		return Verdict{Path: path, Invisible: true}
	}
	// What the host keeps for the bot there (host/ssh: its journals, MCP
	// configs, sockets, agent and uploads) is forbidden as the bot's own
	// files here are; not knowing it, nothing is inside.
	kept, err := host.PrivateDirs(ctx, r.On())
	if err != nil {
		return Verdict{Path: path}
	}
	r.Forbidden = slices.Concat(r.Forbidden, kept)
	if r.WorkDirResolved && r.WorkDir != "" {
		wd := filepath.Clean(r.WorkDir)
		if now, err := r.On().ResolveLinks(ctx, wd); err != nil || now != wd {
			r.WorkDir = "" // moved: neither a root nor a base for relative paths
		}
	}
	forms := []string{path}
	if t := strings.TrimSpace(path); t != path {
		forms = append(forms, t)
	}
	var first Verdict
	for i, f := range forms {
		v := r.check(f, write)
		if i == 0 || (first.Inside && !v.Inside) {
			first = v
		}
	}
	return first
}

func (r Rule) check(path string, write bool) Verdict {
	abs, err := absolute(path, r.WorkDir, r.On())
	if err != nil {
		return Verdict{Path: path}
	}
	var out Verdict
	// The lexical form first: it is what Claude Code opens, so it is the
	// path to show.
	for i, p := range []string{filepath.Clean(abs), abs} {
		resolved, err := r.On().ResolveLinks(ctx, p)
		if err != nil {
			if i == 0 {
				return Verdict{Path: p}
			}
			out.Inside = false
			continue
		}
		v := r.place(resolved)
		if write && v.Inside && (r.sensitiveWrite(p) || r.sensitiveWrite(resolved)) {
			v.Inside, v.Sensitive = false, true
		}
		if i == 0 {
			out = v
		} else if out.Inside && !v.Inside {
			out.Inside, out.Forbidden, out.Sensitive = false, v.Forbidden, v.Sensitive
		}
	}
	return out
}

// place decides for a resolved path: the deepest allowed root holding it
// must be deeper than every forbidden path holding it.
func (r Rule) place(p string) Verdict {
	allowed, forbidden := -1, -1
	for _, root := range append([]string{r.WorkDir}, r.Roots...) {
		if root == "" || !filepath.IsAbs(root) {
			continue
		}
		rr, err := r.On().ResolveLinks(ctx, filepath.Clean(root))
		if err != nil {
			continue
		}
		if within(rr, p, false) {
			allowed = max(allowed, len(rr))
		}
	}
	for _, f := range r.Forbidden {
		if f == "" {
			continue
		}
		f = filepath.Clean(f)
		// Both the name and the resolved name: a forbidden file reached
		// through a link, or a link standing where the file is named.
		forms := []string{f}
		if rf, err := r.On().ResolveLinks(ctx, f); err == nil && rf != f {
			forms = append(forms, rf)
		}
		for _, ff := range forms {
			if within(ff, p, true) {
				forbidden = max(forbidden, len(ff))
			}
		}
	}
	return Verdict{Path: p, Inside: allowed > forbidden, Forbidden: allowed >= 0 && forbidden >= allowed}
}

// within reports whether p is root or lies below it (both absolute and
// clean). A prefix of a name is not enough: /work/proj2 is not in
// /work/proj. fold compares without case, for forbidden paths: on a
// case-insensitive file system /HOME/ME/.UNTETHER names the same file.
func within(root, p string, fold bool) bool {
	if fold {
		root, p = strings.ToLower(root), strings.ToLower(p)
	}
	if p == root || root == "/" {
		return true
	}
	return strings.HasPrefix(p, root+"/")
}

// Absolute expands a leading ~ as Claude Code does ("~" and "~/…" are the
// home directory) and makes a relative path absolute against workDir,
// without cleaning it. Other ~ forms (~user) are refused: whether they mean
// a user's home or a file named "~user" is not worth guessing. The home is
// this machine's.
func Absolute(path, workDir string) (string, error) { return absolute(path, workDir, host.Local{}) }

// absolute is Absolute with the home of h ($HOME there, as
// os.UserHomeDir takes it).
func absolute(path, workDir string, h host.Host) (string, error) {
	if path == "" {
		return "", errors.New("empty path")
	}
	if strings.HasPrefix(path, "~") {
		if path != "~" && !strings.HasPrefix(path, "~/") {
			return "", fmt.Errorf("%q: only ~ and ~/ are expanded", path)
		}
		home := h.Getenv("HOME")
		if home == "" {
			return "", errors.New("expanding ~: $HOME is not defined")
		}
		return home + path[1:], nil
	}
	if filepath.IsAbs(path) {
		return path, nil
	}
	if workDir == "" || !filepath.IsAbs(workDir) {
		return "", fmt.Errorf("%q is relative and there is no working directory", path)
	}
	return workDir + "/" + path, nil
}

// ResolveLinks returns the absolute path p of this machine with every
// link followed, the way the kernel walks it (host.WalkLinks): ".." steps
// up from where the links led, not from the text. A part that does not
// exist is kept as it is, so a file about to be created is placed by its
// existing parent; a dangling link is followed to where it points. Errors
// other than "does not exist" (a file used as a folder, no permission, a
// link loop) are returned. A rule resolves on its own host.
func ResolveLinks(p string) (string, error) { return host.Local{}.ResolveLinks(ctx, p) }

func split(p string) []string { return strings.Split(p, "/") }

// PatternBase returns the folder a glob pattern cannot leave: the part
// before its first wildcard segment ("src" for "src/**/*.go", "/etc" for
// "/etc/*", "" for "*.go"). ok is false when the rest could climb out of
// it anyway, so the pattern is never placed and its request is asked.
//
// Glob libraries differ in what they understand, so the wildcard part may
// use only what all of them read alike and none can turn into a "." or
// ".." segment: * and ? (they match names a directory lists, which never
// include "." or ".."), ** and flat braces whose every choice holds more
// than dots ("*.{ts,tsx}"). Everything else is refused: a ".." of its own,
// bracket classes ("[.][.]"), extglobs and regex groups ("@(.)", "!(x)",
// "(.|x)"), escapes ("\.\."), negation ("!src"), "|", and braces that can
// spell "." or "..", nest, or hold a "/" ("{.,x}{.,y}", "{/etc,x}").
func PatternBase(pattern string) (base string, ok bool) {
	segs := split(pattern)
	i := 0
	for ; i < len(segs); i++ {
		if strings.ContainsAny(segs[i], patternMeta) {
			break
		}
	}
	rest := strings.Join(segs[i:], "/")
	if strings.Contains(rest, "..") || strings.ContainsAny(rest, oddPatternMeta) || !plainBraces(rest) {
		return "", false
	}
	base = strings.Join(segs[:i], "/")
	if base == "" && strings.HasPrefix(pattern, "/") {
		base = "/"
	}
	return base, true
}

// patternMeta are the characters that make a segment a pattern rather than
// a name in some glob library: "@(x)" and "+(x)" are extglobs through
// their "(", so "@types" stays a name.
const patternMeta = `*?[{(\!|`

// oddPatternMeta are the pattern characters PatternBase never accepts in
// a pattern's wildcard part (see there).
const oddPatternMeta = `[(\!|`

// plainBraces reports whether every brace set in rest is flat, stays
// within one segment, and offers only choices that hold a character other
// than "." (none empty), so no expansion can make a "." or ".." segment.
func plainBraces(rest string) bool {
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			return true
		}
		n := strings.IndexByte(rest[open+1:], '}')
		if n < 0 {
			return true // an unclosed brace is taken literally
		}
		set := rest[open+1 : open+1+n]
		if strings.ContainsAny(set, "{/") {
			return false
		}
		for _, choice := range strings.Split(set, ",") {
			if strings.Trim(choice, ".") == "" {
				return false
			}
		}
		rest = rest[open+1+n+1:]
	}
}

// invisible reports whether path holds a character that shows as nothing
// or moves the text around it: format characters (U+FEFF, zero-width
// spaces and joiners, bidi controls) and control characters other than the
// ASCII spaces that trimming removes. Go and JavaScript do not agree on all
// of them (String.prototype.trim removes a U+FEFF, strings.TrimSpace keeps
// it), so a path with one is never inside rather than read one way here and
// another way by Claude Code.
func invisible(path string) bool {
	for _, c := range path {
		switch {
		case c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
		case unicode.Is(unicode.Cf, c), unicode.Is(unicode.Cc, c), c == unicode.ReplacementChar:
			return true
		}
	}
	return false
}
