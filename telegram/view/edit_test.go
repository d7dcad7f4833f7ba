package view

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestEditPreviewHidesNothing: an Edit or MultiEdit prompt shows the lines
// the edit keeps around its change (they decide where it lands), says when
// every occurrence is replaced, and is complete only when old and new can
// be read exactly from it; otherwise the file with the whole input comes
// first. Before, the shared lines were dropped while the prompt counted as
// complete ("verify_tls" could be in any section), "a\n" → "a" read "(no
// visible change)", and a MultiEdit's replace_all was not shown.
func TestEditPreviewHidesNothing(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	type m = map[string]any
	edit := func(old, new string) m { return m{"file_path": "/w/cfg.toml", "old_string": old, "new_string": new} }
	var long []string
	for i := range 30 {
		long = append(long, fmt.Sprintf("line %d", i))
	}
	around := strings.Join(long, "\n")
	for _, c := range []struct {
		name   string
		tool   string
		in     m
		file   bool     // the prompt cannot be read exactly: a file first
		want   []string // in the prompt
		notIn  []string
		inFile []string
	}{
		{name: "context", tool: "Edit", in: edit("[prod]\nverify_tls = true", "[prod]\nverify_tls = false"),
			want: []string{"  [prod]\n- verify_tls = true\n+ verify_tls = false"}},
		{name: "line break at the end", tool: "Edit", in: edit("a\n", "a"), file: true,
			want: []string{"  a\n- (the line break at the end)"}, notIn: []string{"no visible change"}},
		{name: "long context", tool: "Edit", in: edit(around+"\nold\n"+around, around+"\nnew\n"+around), file: true,
			want: []string{"  … 29 more lines\n  line 29\n- old\n+ new\n  line 0\n  … 29 more lines"}, inFile: []string{around + "\nold\n" + around}},
		{name: "multiedit replace_all", tool: "MultiEdit",
			in:   m{"file_path": "/w/a.go", "edits": []m{{"old_string": "x", "new_string": "y", "replace_all": true}}},
			want: []string{"· 1 edit (every occurrence)", "- x\n+ y"}},
		{name: "multiedit with an unknown key in an edit", tool: "MultiEdit",
			in:   m{"file_path": "/w/a.go", "edits": []m{{"old_string": "x", "new_string": "y", "mode": "regex"}}},
			file: true, inFile: []string{`"mode": "regex"`}},
	} {
		p := nastyPrompt(c.tool, c.in, false)
		text := PromptText(p, "/w", now)[0]
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: prompt lacks %q:\n%s", c.name, w, text)
			}
		}
		for _, w := range c.notIn {
			if strings.Contains(text, w) {
				t.Errorf("%s: prompt has %q:\n%s", c.name, w, text)
			}
		}
		f := PromptFullInput(p, "/w", now)
		if (f != nil) != c.file {
			t.Errorf("%s: file %v, want %v:\n%s", c.name, f != nil, c.file, text)
			continue
		}
		if f == nil {
			continue
		}
		if !strings.Contains(text, "Not all of the input is shown here") {
			t.Errorf("%s: a cut prompt does not say so:\n%s", c.name, text)
		}
		for _, w := range c.inFile {
			if !strings.Contains(f.Text, w) {
				t.Errorf("%s: file lacks %q:\n%s", c.name, w, f.Text)
			}
		}
	}
}
