package claudefiles

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/host"
	"github.com/untether/untether/safefile"
)

// The names of custom commands, as measured with CLI 2.1.330:
// ".claude/commands/hello.md" is "hello", ".claude/commands/frontend/comp.md"
// is "frontend:comp" (case kept), ".claude/skills/greet/SKILL.md" is its
// "name:" (else the folder's name); the same under the configuration
// directory for the user's own.

// maxCommands bounds the files read for one listing; maxDepth the folders
// below a commands folder.
const (
	maxCommands = 200
	maxDepth    = 8
)

// Commands lists the custom commands and skills Claude Code offers in the
// working directory dir: the project's (dir/.claude) first, then the
// user's (configDir), sorted by name within each; a name the project has
// hides the user's. The files are the project's, so each is read on the
// host h by safefile's rules: a FIFO or a device is skipped, never waited
// on, and no read outlives ctx's deadline (safefile.DefaultTimeout without
// one).
func Commands(ctx context.Context, h host.Host, configDir, dir string) []engine.Command {
	h = host.Or(h)
	var out []engine.Command
	seen := map[string]bool{}
	for _, src := range []struct {
		base string
		user bool
	}{{filepath.Join(dir, ".claude"), false}, {configDir, true}} {
		if src.base == "" {
			continue
		}
		var found []engine.Command
		commandFiles(ctx, h, filepath.Join(src.base, "commands"), "", 0, &found)
		found = append(found, skills(ctx, h, filepath.Join(src.base, "skills"))...)
		slices.SortFunc(found, func(a, b engine.Command) int { return strings.Compare(a.Name, b.Name) })
		for _, c := range found {
			if seen[c.Name] || len(out) >= maxCommands {
				continue
			}
			seen[c.Name] = true
			c.User = src.user
			out = append(out, c)
		}
	}
	return out
}

// commandFiles adds the commands of folder (named prefix, "" at the top)
// and the folders below it to out. Links are not followed into folders,
// as filepath.WalkDir did.
func commandFiles(ctx context.Context, h host.Host, folder, prefix string, depth int, out *[]engine.Command) {
	entries, err := h.ReadDir(ctx, folder)
	if err != nil || depth > maxDepth {
		return
	}
	for _, e := range entries {
		if len(*out) >= maxCommands || ctx.Err() != nil {
			return
		}
		p := filepath.Join(folder, e.Name())
		if e.IsDir() {
			commandFiles(ctx, h, p, prefix+e.Name()+":", depth+1, out)
			continue
		}
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok {
			continue
		}
		meta, body, ok := frontMatter(ctx, h, p)
		if ok {
			*out = append(*out, engine.Command{Name: prefix + name, Description: describe(meta, body)})
		}
	}
}

func skills(ctx context.Context, h host.Host, root string) []engine.Command {
	entries, err := h.ReadDir(ctx, root)
	if err != nil {
		return nil
	}
	var out []engine.Command
	for _, e := range entries {
		if !e.IsDir() || len(out) >= maxCommands || ctx.Err() != nil {
			continue
		}
		meta, body, ok := frontMatter(ctx, h, filepath.Join(root, e.Name(), "SKILL.md"))
		if !ok {
			continue
		}
		name := meta["name"]
		if name == "" {
			name = e.Name()
		}
		out = append(out, engine.Command{Name: name, Description: describe(meta, body)})
	}
	return out
}

// frontMatter reads the "key: value" lines between the leading "---"
// lines of a Markdown file, and the first lines of the body; only the
// file's first 4 KB are read. ok is false for a file that is missing or
// is no regular file.
func frontMatter(ctx context.Context, h host.Host, path string) (meta map[string]string, body string, ok bool) {
	head, err := safefile.Within(ctx, func() ([]byte, error) {
		f, _, err := h.Open(ctx, path, 0)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(io.LimitReader(f, 4096))
	})
	if err != nil {
		return nil, "", false
	}
	meta = map[string]string{}
	text := strings.ReplaceAll(string(head), "\r\n", "\n")
	rest, found := strings.CutPrefix(text, "---\n")
	if !found {
		return meta, text, true
	}
	fm, body, found := strings.Cut(rest, "\n---")
	if !found {
		return meta, text, true
	}
	for _, line := range strings.Split(fm, "\n") {
		k, v, found := strings.Cut(line, ":")
		if found {
			meta[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return meta, body, true
}

// describe is the description line Claude Code shows: the front matter's,
// else the body's first non-empty line.
func describe(meta map[string]string, body string) string {
	if d := meta["description"]; d != "" {
		return d
	}
	for _, line := range strings.Split(body, "\n") {
		if line = strings.TrimSpace(strings.TrimLeft(line, "#")); line != "" && line != "-" {
			return line
		}
	}
	return ""
}
