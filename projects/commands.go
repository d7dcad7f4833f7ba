package projects

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Command is a custom slash command of Claude Code: a Markdown file in a
// commands folder, or a skill (a folder with SKILL.md). Claude Code names
// them as measured with CLI 2.1.330: ".claude/commands/hello.md" is
// "hello", ".claude/commands/frontend/comp.md" is "frontend:comp" (case
// kept), ".claude/skills/greet/SKILL.md" is its "name:" (else the folder's
// name); the same under the configuration directory for the user's own.
type Command struct {
	Name        string
	Description string
	// User is true for the user's own (in the configuration directory),
	// false for the project's.
	User bool
}

// maxCommands bounds the files read for one listing.
const maxCommands = 200

// Commands lists the custom commands and skills Claude Code offers in the
// working directory dir: the project's (dir/.claude) first, then the
// user's (configDir), sorted by name within each; a name the project has
// hides the user's.
func Commands(configDir, dir string) []Command {
	var out []Command
	seen := map[string]bool{}
	for _, src := range []struct {
		base string
		user bool
	}{{filepath.Join(dir, ".claude"), false}, {configDir, true}} {
		if src.base == "" {
			continue
		}
		found := append(commandFiles(filepath.Join(src.base, "commands")), skills(filepath.Join(src.base, "skills"))...)
		slices.SortFunc(found, func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
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

func commandFiles(root string) []Command {
	var out []Command
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(out) >= maxCommands {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		rel, err := filepath.Rel(root, strings.TrimSuffix(p, ".md"))
		if err != nil {
			return nil
		}
		meta, body := frontMatter(p)
		out = append(out, Command{Name: strings.ReplaceAll(rel, string(filepath.Separator), ":"), Description: describe(meta, body)})
		return nil
	})
	return out
}

func skills(root string) []Command {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []Command
	for _, e := range entries {
		if !e.IsDir() || len(out) >= maxCommands {
			continue
		}
		p := filepath.Join(root, e.Name(), "SKILL.md")
		if _, err := os.Stat(p); err != nil {
			continue
		}
		meta, body := frontMatter(p)
		name := meta["name"]
		if name == "" {
			name = e.Name()
		}
		out = append(out, Command{Name: name, Description: describe(meta, body)})
	}
	return out
}

// frontMatter reads the "key: value" lines between the leading "---"
// lines of a Markdown file, and the first lines of the body; only the
// file's first 4 KB are read.
func frontMatter(path string) (meta map[string]string, body string) {
	meta = map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		return meta, ""
	}
	defer f.Close()
	head, _ := io.ReadAll(io.LimitReader(f, 4096))
	text := strings.ReplaceAll(string(head), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return meta, text
	}
	fm, body, ok := strings.Cut(rest, "\n---")
	if !ok {
		return meta, text
	}
	for _, line := range strings.Split(fm, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok {
			meta[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return meta, body
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

// MenuName is the name a command can have in Telegram's command menu,
// which allows only a–z, 0–9 and "_" (at most 32): lower case, with "-"
// and ":" as "_". ok is false when no such name exists.
func MenuName(name string) (string, bool) {
	m := strings.NewReplacer("-", "_", ":", "_").Replace(strings.ToLower(name))
	if len(m) == 0 || len(m) > 32 {
		return "", false
	}
	for i := 0; i < len(m); i++ {
		c := m[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return "", false
		}
	}
	return m, true
}

// FindCommand returns the command a name typed in Telegram means: the
// command of that exact name, else the one whose menu name it is (a tap in
// the menu sends "/code_review" for "code-review").
func FindCommand(cmds []Command, typed string) (Command, bool) {
	for _, c := range cmds {
		if c.Name == typed {
			return c, true
		}
	}
	for _, c := range cmds {
		if m, ok := MenuName(c.Name); ok && m == strings.ToLower(typed) {
			return c, true
		}
	}
	return Command{}, false
}
