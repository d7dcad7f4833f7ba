package untether

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's layout table names every top-level package, so a newcomer
// finds each one from the front page (engine, host, hold, projects and
// five more were missing once).
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(readme), "## Layout")
	if !ok {
		t.Fatal("README.md has no Layout section")
	}
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var want []string // top-level packages, and each command under cmd
	for _, d := range dirs {
		if !d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			continue
		}
		if d.Name() == "cmd" {
			cmds, _ := os.ReadDir("cmd")
			for _, c := range cmds {
				if c.IsDir() {
					want = append(want, "cmd/"+c.Name())
				}
			}
		} else if goFiles, _ := filepath.Glob(filepath.Join(d.Name(), "*.go")); len(goFiles) > 0 {
			want = append(want, d.Name())
		}
	}
	for _, name := range want {
		if !strings.Contains(layout, "`"+name+"`") {
			t.Errorf("the README's layout table does not name `%s`", name)
		}
	}
}
