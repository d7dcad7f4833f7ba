package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A reader of unit files following systemd's own rules (systemd.syntax(7),
// systemd.service(5) "Command lines", systemd.exec(5) Environment=; the
// parsers are config_parse_exec and config_parse_environ in systemd's
// src/core/load-fragment.c):
//   - a line is a directive; \n, \r and NUL all end a line, and a line
//     ending in a backslash continues on the next;
//   - a value is split into words on whitespace; '...' and "..." quote
//     (anywhere in a word), and a backslash escapes C-style, inside
//     quotes too;
//   - each word then has its %-specifiers resolved: %% is a %;
//   - ExecStart's arguments (not the executable path) have $ expanded when
//     the command runs: $$ is a $;
//   - Environment= has no $ expansion.
// It is strict: anything the unit should never contain (an escape other
// than \\ \" \', a specifier, a variable) is an error, so a quoting bug is
// a failure, not a silently different path.

// unitDirectives reads the [Service] section's directives.
func unitDirectives(t *testing.T, unit string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	section := ""
	for _, line := range strings.FieldsFunc(unit, func(r rune) bool { return r == '\n' || r == '\r' || r == 0 }) {
		if strings.HasSuffix(line, `\`) {
			t.Fatalf("a line continues on the next: %q", line)
		}
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			section = line
		default:
			key, value, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("not a directive: %q", line)
			}
			if section == "[Service]" {
				out[strings.TrimSpace(key)] = append(out[strings.TrimSpace(key)], strings.TrimSpace(value))
			}
		}
	}
	return out
}

// systemdWords splits a value as extract_first_word does with
// EXTRACT_UNQUOTE|EXTRACT_CUNESCAPE.
func systemdWords(s string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord, quote := false, rune(0)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '\\':
			if i+1 == len(rs) {
				return nil, fmt.Errorf("a backslash ends %q", s)
			}
			i++
			switch rs[i] {
			case '\\', '"', '\'':
				word.WriteRune(rs[i])
			default:
				return nil, fmt.Errorf("escape \\%c in %q: not one the unit should use", rs[i], s)
			}
			inWord = true
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(c)
		case c == '"' || c == '\'':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unbalanced quoting in %q", s)
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// resolveSpecifiers resolves a word's %-specifiers; only %% is expected.
func resolveSpecifiers(w string) (string, error) {
	return undouble(w, '%', "specifier")
}

// undouble turns cc into c and refuses c followed by anything else.
func undouble(w string, c byte, what string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		if w[i] != c {
			b.WriteByte(w[i])
			continue
		}
		if i+1 == len(w) || w[i+1] != c {
			return "", fmt.Errorf("%s at %d in %q", what, i, w)
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), nil
}

// execCommand is what systemd runs for an ExecStart= value: the executable
// path, and the arguments after it as the process gets them.
func execCommand(value string) (path string, args []string, err error) {
	words, err := systemdWords(value)
	if err != nil {
		return "", nil, err
	}
	if len(words) == 0 {
		return "", nil, errors.New("no command")
	}
	if strings.ContainsAny(words[0][:1], "-@:+!") {
		return "", nil, fmt.Errorf("the executable %q starts with a prefix character", words[0])
	}
	if path, err = resolveSpecifiers(words[0]); err != nil {
		return "", nil, err
	}
	for _, w := range words[1:] {
		if w == ";" {
			return "", nil, fmt.Errorf("a second command in %q", value)
		}
		if w, err = resolveSpecifiers(w); err == nil {
			w, err = undouble(w, '$', "variable")
		}
		if err != nil {
			return "", nil, err
		}
		args = append(args, w)
	}
	return path, args, nil
}

// environment is what Environment= values set.
func environment(values []string) (map[string]string, error) {
	env := map[string]string{}
	for _, value := range values {
		words, err := systemdWords(value)
		if err != nil {
			return nil, err
		}
		for _, w := range words {
			if w, err = resolveSpecifiers(w); err != nil {
				return nil, err
			}
			k, v, ok := strings.Cut(w, "=")
			if !ok {
				return nil, fmt.Errorf("not an assignment: %q", w)
			}
			env[k] = v
		}
	}
	return env, nil
}

// The reader itself: systemd's rules, on lines written by hand.
func TestSystemdReader(t *testing.T) {
	for _, c := range []struct {
		value string
		path  string
		args  []string
		bad   bool
	}{
		{value: `/bin/a b`, path: "/bin/a", args: []string{"b"}},
		{value: `"/x y/a" 'c d' e"f g"h`, path: "/x y/a", args: []string{"c d", "ef gh"}},
		{value: `/a "\"q\" \\ \'" 100%% $$HOME`, path: "/a", args: []string{`"q" \ '`, "100%", "$HOME"}},
		{value: `/a%%$$b`, path: "/a%$$b"}, // the path: specifiers, no variables
		{value: `/a %h`, bad: true},
		{value: `/a $HOME`, bad: true},
		{value: `/a "b`, bad: true},
		{value: `/a \n`, bad: true},
		{value: `-/a`, bad: true},
		{value: `/a ; /b`, bad: true},
	} {
		path, args, err := execCommand(c.value)
		if c.bad != (err != nil) || path != c.path || !slices.Equal(args, c.args) {
			t.Errorf("%s: %q %q %v", c.value, path, args, err)
		}
	}
	env, err := environment([]string{`"A=1 2" B=%%h$x`, `C="\\"`})
	if err != nil || env["A"] != "1 2" || env["B"] != "%h$x" || env["C"] != `\` {
		t.Errorf("environment: %q %v", env, err)
	}
}

// weirdNames are directory names a unit must carry through exactly.
var weirdNames = []string{"a b", `q"uote`, "o'brien", `back\slash`, `end\`, "100%h", "%%", "$HOME", "${X}y", "$$",
	"semi ;", "#hash", ";semi", "tab-less\u00a0nbsp", "ünï"}

// The config path, the claude directory and the node directory reach
// systemd as they are, whatever their characters (the executable: see
// TestServiceInstallExecutableSystemdRefuses).
func TestServiceUnitRoundTrips(t *testing.T) {
	for _, name := range weirdNames {
		config, claude, xdg := serviceEnv(t, name)
		nodeDir := filepath.Join(filepath.Dir(config), name+" node")
		os.MkdirAll(nodeDir, 0o755)
		writeScript(t, nodeDir, "node", "exit 0")
		t.Setenv("PATH", nodeDir)
		exe := "/opt/un tether/100%/bin/untether"
		getenv := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": xdg}[k] }
		if err := installService(context.Background(), serviceFlags{config: config}, exe, getenv, &strings.Builder{}); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		raw, err := os.ReadFile(filepath.Join(xdg, "systemd", "user", "untether.service"))
		if err != nil {
			t.Fatal(err)
		}
		d := unitDirectives(t, string(raw))
		if len(d["ExecStart"]) != 1 {
			t.Fatalf("%s: ExecStart %q", name, d["ExecStart"])
		}
		path, args, err := execCommand(d["ExecStart"][0])
		if err != nil || path != exe || !slices.Equal(args, []string{"run", "--config", config}) {
			t.Errorf("%s: ExecStart=%s runs %q %q (%v), want %q run --config %q", name, d["ExecStart"][0], path, args, err, exe, config)
		}
		env, err := environment(d["Environment"])
		dirs := strings.Split(env["PATH"], ":")
		if err != nil || len(env) != 1 || len(dirs) < 2 || dirs[0] != filepath.Dir(claude) || dirs[1] != nodeDir {
			t.Errorf("%s: Environment=%q sets %q (%v), want PATH=%s:%s:...", name, d["Environment"], env, err, filepath.Dir(claude), nodeDir)
		}
	}
}

// systemd refuses an executable path with a quote or a backslash, and
// expands $ in the name the process gets: install says so instead of
// writing a unit that does not start.
func TestServiceInstallExecutableSystemdRefuses(t *testing.T) {
	config, _, xdg := serviceEnv(t, "home")
	getenv := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": xdg}[k] }
	for _, exe := range []string{`/opt/q"uote/untether`, "/opt/o'brien/untether", `/opt/back\slash/untether`, "/opt/$HOME/untether"} {
		var out strings.Builder
		err := installService(context.Background(), serviceFlags{config: config}, exe, getenv, &out)
		if err == nil || !strings.Contains(err.Error(), "the untether executable "+fmt.Sprintf("%q", exe)) {
			t.Errorf("%s: err = %v", exe, err)
		}
		if _, statErr := os.Stat(filepath.Join(xdg, "systemd", "user", "untether.service")); !errors.Is(statErr, os.ErrNotExist) {
			t.Fatalf("%s: a unit was written (%v)", exe, statErr)
		}
	}
}

// What systemd itself reads from the unit, where systemd-analyze is
// installed (it verifies a unit file without a running systemd): the unit
// loads without a warning, and the executable it names exists, so its path
// was read back exactly.
func TestServiceUnitSystemdVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("no systemd-analyze here")
	}
	verify := func(unitPath string) string {
		out, err := exec.Command(analyze, "verify", "--man=no", unitPath).CombinedOutput()
		if err != nil {
			return fmt.Sprintf("%v: %s", err, out)
		}
		return string(out)
	}
	for _, name := range append(weirdNames, "plain") {
		if strings.ContainsAny(name, `"'\$`) {
			continue // refused as the executable's folder: TestServiceInstallExecutableSystemdRefuses
		}
		config, _, xdg := serviceEnv(t, name)
		getenv := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": xdg}[k] }
		exe := writeScript(t, filepath.Dir(config), "un tether", "exit 0")
		if err := installService(context.Background(), serviceFlags{config: config}, exe, getenv, &strings.Builder{}); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		unitPath := filepath.Join(xdg, "systemd", "user", "untether.service")
		if out := verify(unitPath); out != "" {
			raw, _ := os.ReadFile(unitPath)
			t.Errorf("%s: systemd-analyze verify: %s\n%s", name, out, raw)
		}
		// The control: without the executable, systemd says so; the check
		// above did look at the path.
		os.Remove(exe)
		if out := verify(unitPath); !strings.Contains(out, "not executable") {
			t.Errorf("%s: without the executable, systemd-analyze verify said %q", name, out)
		}
	}
}

// A control character (a newline above all) in any value the unit holds
// would start a directive of its own (ExecStartPre=... at every start):
// install refuses, names the value, and writes (or prints) nothing.
func TestServiceInstallRefusesControlCharacters(t *testing.T) {
	chars := []string{"\n", "\r", "\t", "\x1b", "\x7f", "\u0085", "\u2028", "\u2029", "\xff"}
	for _, c := range chars {
		for _, what := range []string{"executable", "config", "claude", "node", "home"} {
			if what == "claude" && c == "\xff" {
				continue // a TOML config cannot hold a path that is not UTF-8
			}
			root := t.TempDir()
			odd := filepath.Join(root, "odd"+c+"ExecStartPre=/bin/touch /tmp/pwned")
			configDir, claudeDir := filepath.Join(root, "home"), filepath.Join(root, "claude")
			exe, wantName, wantValue := "/opt/untether/bin/untether", "", ""
			switch what {
			case "executable":
				exe = odd + "/untether"
				wantName, wantValue = "the untether executable", exe
			case "config":
				configDir = odd
				wantName, wantValue = "the config path", filepath.Join(odd, "untether.toml")
			case "claude":
				claudeDir = odd
				wantName, wantValue = "the claude directory", odd
			case "node":
				os.MkdirAll(odd, 0o755)
				writeScript(t, odd, "node", "exit 0")
				wantName, wantValue = "the node directory", odd
			case "home":
				wantName, wantValue = "the home directory", odd
			}
			t.Setenv("PATH", map[bool]string{true: odd, false: filepath.Join(root, "none")}[what == "node"])
			t.Setenv("HOME", map[bool]string{true: odd, false: root}[what == "home"])
			config, _, xdg := serviceEnvIn(t, configDir, claudeDir)
			getenv := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": xdg}[k] }
			for _, print := range []bool{false, true} {
				var out strings.Builder
				err := installService(context.Background(), serviceFlags{config: config, print: print}, exe, getenv, &out)
				want := fmt.Sprintf("%s %q", wantName, wantValue)
				if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "control character") &&
					!strings.Contains(err.Error(), "not valid UTF-8") {
					t.Errorf("%q in %s, print %v: err = %v, want it to name %s", c, what, print, err, want)
				}
				if strings.Contains(out.String(), "ExecStart") {
					t.Errorf("%q in %s: printed a unit:\n%s", c, what, out.String())
				}
			}
			if _, err := os.Stat(filepath.Join(xdg, "systemd", "user", "untether.service")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%q in %s: a unit was written (%v)", c, what, err)
			}
		}
	}
	// NUL cannot be in a file's name; an executable path is a string.
	t.Setenv("HOME", t.TempDir())
	config, _, xdg := serviceEnv(t, "home")
	getenv := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": xdg}[k] }
	err := installService(context.Background(), serviceFlags{config: config}, "/opt/a\x00b/untether", getenv, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), `the untether executable "/opt/a\x00b/untether"`) {
		t.Errorf("NUL: err = %v", err)
	}
}
