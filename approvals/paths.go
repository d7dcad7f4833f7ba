package approvals

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"github.com/untether/untether/host"
	"github.com/untether/untether/scope"
)

// pathTool says where a file tool's input names the paths it touches.
type pathTool struct {
	fields []string // input fields holding a path; the first one set is used
	// optional: no path means the working directory (Glob, Grep);
	// otherwise a missing path is not inside.
	optional bool
	glob     bool // the pattern field is a glob that may reach elsewhere
	// write: the tool changes the file, so the path must also not be a
	// place where files are run or trusted (scope.Rule.CheckWrite).
	write bool
}

// pathTools are the tools whose allow-list entry means "this tool, on paths
// inside the session's scope". Reads are the point (Claude Code asks only
// about reads outside the working directory, so "Read" meant "any file"),
// and the file-changing tools follow the same rule, so no entry can let the
// bot's own files be written without asking either.
var pathTools = map[string]pathTool{
	"Read":         {fields: []string{"file_path"}},
	"NotebookRead": {fields: []string{"notebook_path"}},
	"LS":           {fields: []string{"path"}},
	"Glob":         {fields: []string{"path"}, optional: true, glob: true},
	"Grep":         {fields: []string{"path"}, optional: true},
	"Edit":         {fields: []string{"file_path"}, write: true},
	"MultiEdit":    {fields: []string{"file_path"}, write: true},
	"Write":        {fields: []string{"file_path"}, write: true},
	"NotebookEdit": {fields: []string{"notebook_path"}, write: true},
}

// IsPathTool reports whether an allow-list entry for tool is limited to
// paths inside the session's scope.
func IsPathTool(tool string) bool {
	_, ok := pathTools[tool]
	return ok
}

// toolPaths returns the paths a path tool's input touches, relative ones
// as given (the rule resolves them against the working directory). ok is
// false when the input cannot be read or lacks a required path: such a
// request is never inside.
func toolPaths(pt pathTool, input json.RawMessage) (paths []string, ok bool) {
	var in map[string]any
	if err := json.Unmarshal(input, &in); err != nil || in == nil {
		return nil, false
	}
	dir := ""
	for _, f := range pt.fields {
		v := in[f]
		if v == nil {
			continue
		}
		s, isStr := v.(string)
		if !isStr {
			return nil, false
		}
		dir = s
		break
	}
	if dir == "" {
		if !pt.optional {
			return nil, false
		}
		dir = "."
	}
	paths = []string{dir}
	if pt.glob {
		pattern, _ := in["pattern"].(string)
		base, ok := scope.PatternBase(pattern)
		switch {
		case !ok:
			return nil, false
		case base == "":
		case filepath.IsAbs(base) || strings.HasPrefix(base, "~"):
			paths = append(paths, base) // the pattern names its own place
		default:
			paths = append(paths, dir+"/"+base)
		}
	}
	return paths, true
}

// PathRule is one session's path rule: the part all sessions share
// (Config.Paths) with the session's working directory and its chat's
// upload folder, on the machine w (the zero Where: Config.Paths' host).
// Reads, the files Claude sends and /get all use it. For a process's
// working directory, the caller sets WorkDirResolved.
func (b *Broker) PathRule(workDir, uploadDir string, w Where) scope.Rule {
	rule := b.paths
	rule.WorkDir = workDir
	rule.Roots = slices.Clone(b.paths.Roots)
	if uploadDir != "" {
		rule.Roots = append(rule.Roots, uploadDir)
	}
	if w.Host != nil {
		rule.Host = w.Host
		rule.Forbidden = slices.Concat(b.paths.Forbidden, w.Private)
	}
	return rule
}

// Where is the machine a session's process runs on, for its path rule: the
// host the rule looks at, and that machine's own private places (the
// folder of every chat's uploads there), which Config.Paths, written for
// the bot's machine, does not name.
type Where struct {
	Host    host.Host
	Private []string
	// Name is the machine's name ("local" or a [hosts.NAME]) when the bot
	// has more than one, "" when it has only its own: a prompt names it,
	// so an approver knows where what they approve runs (anyone in a group
	// may /host a chat, to a host or back to the bot's own machine).
	Name string
}

// checkPaths says whether every path a path-tool request touches is inside
// the session's scope, and returns the resolved paths that are outside it
// (none when the request's paths could not be read at all, or when a write
// is only refused because its place is sensitive: it is not inside, but
// not outside the project either). Other tools are always inside.
func (b *Broker) checkPaths(req Request) (inside bool, outside []string) {
	pt, ok := pathTools[req.ToolName]
	if !ok {
		return true, nil
	}
	paths, ok := toolPaths(pt, req.Input)
	if !ok {
		return false, nil
	}
	rule := b.PathRule(req.WorkDir, req.UploadDir, req.Where)
	rule.WorkDirResolved = true // Request.WorkDir is where the process started
	check := rule.Check
	if pt.write {
		check = rule.CheckWrite
	}
	inside = true
	for _, p := range paths {
		v := check(p)
		inside = inside && v.Inside
		if !v.Inside && !v.Sensitive && !slices.Contains(outside, v.Path) {
			outside = append(outside, v.Path)
		}
	}
	return inside, outside
}
