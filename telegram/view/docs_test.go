package view

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/commands.md carries a table of the bot's commands made from
// BotCommands, between these markers; the prose around it is written by
// hand.
const (
	docsCommands = "../../docs/commands.md"
	docsBegin    = "<!-- commands:begin -->\n"
	docsEnd      = "<!-- commands:end -->\n"
)

// commandsMarkdown is the table of the bot's commands for
// docs/commands.md, in /help's order.
func commandsMarkdown() string {
	// In a table a "|" splits cells even inside `code`, unless escaped.
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	var b strings.Builder
	b.WriteString("| Command | Also | What it does |\n|---|---|---|\n")
	for _, c := range helpOrder() {
		var also []string
		for _, a := range c.Aliases {
			also = append(also, "`/"+a+"`")
		}
		b.WriteString("| `" + cell(c.Usage()) + "` | " + strings.Join(also, ", ") + " | " + cell(c.Help) + " |\n")
	}
	return b.String()
}

// TestDocsCommands fails when docs/commands.md's table of commands is not
// what BotCommands says; -update (or go generate ./telegram/view) rewrites
// it, leaving the rest of the file as it is.
func TestDocsCommands(t *testing.T) {
	path := filepath.FromSlash(docsCommands)
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, ok := bytes.Cut(doc, []byte(docsBegin))
	if !ok {
		t.Fatalf("%s lacks the line %q", path, docsBegin)
	}
	old, tail, ok := bytes.Cut(rest, []byte(docsEnd))
	if !ok {
		t.Fatalf("%s lacks the line %q after %q", path, docsEnd, docsBegin)
	}
	want := commandsMarkdown()
	if *update {
		out := string(head) + docsBegin + want + docsEnd + string(tail)
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(old) != want {
		t.Errorf("%s's table of commands is out of date: run go generate ./telegram/view (go test ./telegram/view -run TestDocsCommands -update)\n--- now ---\n%s--- want ---\n%s", path, old, want)
	}
}
