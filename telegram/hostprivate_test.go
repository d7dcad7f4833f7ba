package telegram_test

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/host/hosttest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// On a host whose working directory is its user's home, the folder the
// bot keeps there (~/.cache/untether: the holders' journals of every
// chat, the MCP configs with their send_file secrets, the agent) is
// private as the bot's own files are here: /get and send_file refuse a
// file in it with the words a private file here gets, and send nothing.
// Before, only the uploads folder was private there, and /get sent
// another chat's whole conversation.
func TestHostKeepsItsFolderPrivate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		home := project(t, map[string][]byte{
			"notes.txt":                           []byte("the user's notes"),
			".cache/untether/hold/abc123/journal": []byte("another chat's whole conversation"),
			".cache/untether/mcp-7.json":          []byte(`{"env":{"UNTETHER_MCP_SECRET":"another session's"}}`),
		})
		kept := filepath.Join(home, ".cache", "untether")
		here := project(t, map[string][]byte{"state.db": []byte("the state file")})
		files := newFakeFiles(t)
		var results []string
		box := &fakeEngine{script: func(tu *enginetest.Turn) {
			tu.Start("m")
			results = files.call(nil, "notes.txt", ".cache/untether/mcp-7.json", filepath.Join(kept, "hold", "abc123", "journal"))
			tu.Complete("done")
		}}
		h := newHarness(t, echoScript, withFiles(files, here), func(c *telegram.Config) {
			c.PrivatePaths = []string{filepath.Join(here, "state.db")}
			c.Machines = append(c.Machines, chat.MachineConfig{Name: "box", Engine: box,
				Host: &hosttest.Recorder{Private: []string{kept}}, WorkDir: home,
				UploadDir: filepath.Join(kept, "uploads"), Grant: files.Open})
		})
		chat := h.dm.ID

		// What a private file of the bot gets here.
		h.say("/get state.db")
		local := h.awaitText(chat, "Not sent")
		if !strings.Contains(local.Text, "one of the bot's private files") {
			t.Fatalf("the local private file: %q", local.Text)
		}
		refusal := func(path string) string { return strings.ReplaceAll(local.Text, filepath.Join(here, "state.db"), path) }

		h.say("/host box")
		h.awaitText(chat, "now works on box")
		for _, p := range []string{".cache/untether/hold/abc123/journal", ".cache/untether/mcp-7.json"} {
			q := h.say("/get " + p)
			got := h.tg.AwaitMessage(wait, chat, func(m tgtest.Message) bool { return m.ReplyTo == q })
			if want := refusal(filepath.Join(home, p)); got.Document != nil || got.Text != want {
				t.Errorf("/get %s on the host: sent %v, text %q; want %q", p, got.Document != nil, got.Text, want)
			}
		}
		q := h.say("/get notes.txt") // the rest of the home is the chat's
		if m := h.tg.AwaitMessage(wait, chat, func(m tgtest.Message) bool { return m.ReplyTo == q }); m.Document == nil ||
			m.Document.FileName != "notes.txt" {
			t.Fatalf("/get notes.txt answered %+v, want the file", m)
		}

		h.say("send them")
		h.awaitText(chat, "done")
		if len(results) != 3 || results[0] != "Delivered" {
			t.Fatalf("send_file results %q", results)
		}
		for i, p := range []string{filepath.Join(kept, "mcp-7.json"), filepath.Join(kept, "hold", "abc123", "journal")} {
			if want := p + " is one of the bot's private files; nothing was sent"; !strings.Contains(results[1+i], want) {
				t.Errorf("send_file %s: %q, want %q", p, results[1+i], want)
			}
		}
		var sent []string
		for _, m := range h.tg.Documents(chat) {
			sent = append(sent, m.Document.FileName)
		}
		if want := "notes.txt,notes.txt"; strings.Join(sent, ",") != want {
			t.Errorf("documents sent %q, want %q", sent, want)
		}
	})
}
