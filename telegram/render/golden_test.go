package render

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

const (
	partSep  = "\n-----8<-----\n"
	plainSep = "\n=====plain=====\n"
)

// limitInName lets a golden exercise splitting on a short input:
// "name.limit64.md" is split with limit 64, everything else with MaxMessage.
var limitInName = regexp.MustCompile(`\.limit(\d+)\.md$`)

func goldenLimit(name string) int {
	if m := limitInName.FindStringSubmatch(name); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return MaxMessage
}

func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/*.md")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			limit := goldenLimit(in)
			html := Markdown(string(src))
			parts := Split(html, limit)
			checkHTMLParts(t, html, parts, limit)
			plain := Plain(string(src))
			plainParts := SplitPlain(plain, limit)
			checkPlainParts(t, plain, plainParts, limit)

			got := strings.Join(parts, partSep) + plainSep + strings.Join(plainParts, partSep) + "\n"
			golden := strings.TrimSuffix(in, ".md") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (rerun with -update after checking):\n--- got ---\n%s\n--- want ---\n%s", golden, got, want)
			}
		})
	}
}
