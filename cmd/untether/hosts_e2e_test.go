package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/filesend"
	"github.com/untether/untether/host"
	sshhost "github.com/untether/untether/host/ssh"
	"github.com/untether/untether/host/ssh/sshtest"
	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/telegram/tgtest"
)

// claudeOnHost is realClaude with the chat's default host "box": the
// distribution's sshd on 127.0.0.1, the pinned CLI run there as its test
// user, in a working folder of that user's. The CLI there gets the fake
// API from [claude.env]: the bot's own environment does not go there.
func claudeOnHost(t *testing.T, steps ...claudetest.Step) (*e2eEnv, *claudetest.API, *sshtest.Server, string) {
	t.Helper()
	return claudeOnHostWith(t, "", steps...)
}

// claudeOnHostWith is claudeOnHost with more [claude] lines.
func claudeOnHostWith(t *testing.T, claudeLines string, steps ...claudetest.Step) (*e2eEnv, *claudetest.API, *sshtest.Server, string) {
	t.Helper()
	bin := claudetest.Binary(t)
	s := sshtest.Start(t)
	remote := sshtest.Claude(t, bin)
	work := s.Dir(t, "work")
	api := claudetest.NewAPI(t, steps...)
	env, _ := claudetest.Env(t, api.URL())
	claudeTOML := claudeLines + fmt.Sprintf(`use_api_billing = true
host = "box"
[claude.env]
ANTHROPIC_BASE_URL = %q
ANTHROPIC_API_KEY = "test-key"
CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = "1"
DISABLE_AUTOUPDATER = "1"
`, api.URL())
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = fmt.Sprintf("%q", a)
	}
	hostTOML := fmt.Sprintf(`[hosts.box]
ssh = %q
ssh_args = [%s]
claude = %q
working_dir = %q
`, s.Dest, strings.Join(args, ", "), remote, work)
	e := newE2EOn(t, tgtest.New(t), bin, env, claudeTOML, hostTOML)
	return e, api, s, work
}

// On a host: an approval press runs the command there, send_file sends a
// file from there (through the socket forwarded over the connection),
// /diff shows the changes of the repository there, /status names the host.
func TestContractBotOnSSHHost(t *testing.T) {
	tool := "mcp__" + filesend.ServerName + "__" + filesend.ToolName
	e, api, s, work := claudeOnHost(t,
		claudetest.Say("Got the file."),
		claudetest.Answer(claudetest.ToolUse("Bash", map[string]any{"command": "env > ../env-seen.txt; echo changed >> notes.txt", "description": "Change notes"})),
		claudetest.Say("Changed it."),
		claudetest.Answer(claudetest.ToolUse(tool, map[string]any{"path": "report.txt"})),
		claudetest.Say("Sent."),
	)
	// A repository of the host's user, made there (git refuses one owned
	// by another user).
	h, err := sshhost.New(sshhost.Options{Name: "setup", Dest: s.Dest, Args: s.Args, ControlDir: t.TempDir(), Agent: untetherBinary(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var out bytes.Buffer
	p, err := h.Start(context.Background(), host.Cmd{Path: "/bin/sh", Dir: work, Stdout: &out, Stderr: &out, Args: []string{"-c",
		"git init -q . && printf 'first\\n' > notes.txt && printf 'the report\\n' > report.txt && git add . && " +
			"git -c user.name=t -c user.email=t@t commit -qm init"}})
	if err != nil {
		t.Fatal(err)
	}
	if ex, err := p.Wait(); err != nil || ex.Code != 0 {
		t.Fatalf("setting up the repository there: %v %v\n%s", ex, err, out.String())
	}

	// A variable of the bot's own environment, which must not reach the host.
	e.env = append(e.env, "UNTETHER_E2E_MARKER=only-on-the-bot")
	e.start(t)
	// A file sent in the chat lands on the host, in its user's folder.
	e.tg.SendDocument(e.user, e.chat, "data.csv", "text/csv", []byte("a,b\n1,2\n"), "Read this")
	e.awaitText(t, "Got the file.")
	uploads := s.Home + "/.cache/untether/uploads/"
	if reqs := api.Requests(); len(reqs) == 0 || !strings.Contains(reqs[0].AllText(), uploads) {
		t.Errorf("Claude was not told of the file under %s", uploads)
	}
	if found, _ := filepath.Glob(uploads + "*/*data.csv"); len(found) != 1 {
		t.Errorf("the file is not in the host user's upload folder: %v", found)
	} else if got, _ := os.ReadFile(found[0]); string(got) != "a,b\n1,2\n" {
		t.Errorf("the file there holds %q", got)
	}

	e.tg.SendMessage(e.user, e.chat, "Change the notes")
	prompt := e.tg.AwaitMessage(90*time.Second, e.chat.ID, func(m tgtest.Message) bool {
		return answerHas(m, "echo changed") && hasButton(m, "Approve")
	})
	e.tg.PressButton(e.user, e.chat, prompt.ID, buttonData(t, prompt, "Approve"))
	e.awaitText(t, "Changed it.")
	if got, _ := os.ReadFile(filepath.Join(work, "notes.txt")); string(got) != "first\nchanged\n" {
		t.Errorf("notes.txt there = %q: the approved command did not run there", got)
	}

	// The command ran with the host's login environment and the values
	// the bot sets ([claude.env]), nothing else of the bot's.
	seen, err := os.ReadFile(filepath.Join(filepath.Dir(work), "env-seen.txt"))
	if err != nil {
		t.Fatal(err)
	}
	env := "\n" + string(seen)
	bad := []string{"UNTETHER_E2E_MARKER", "GORACE"}
	for _, kv := range e.env {
		if strings.HasPrefix(kv, "HOME=") {
			bad = append(bad, "\n"+kv+"\n") // the bot's HOME
		}
	}
	for _, bad := range bad {
		if strings.Contains(env, bad) {
			t.Errorf("the bot's environment reached the host: %q in\n%s", bad, seen)
		}
	}
	for _, want := range []string{"\nHOME=" + s.Home + "\n", "\nUSER=" + sshtest.User + "\n", "\nANTHROPIC_BASE_URL="} {
		if !strings.Contains(env, want) {
			t.Errorf("the environment there lacks %q:\n%s", want, seen)
		}
	}

	e.tg.SendMessage(e.user, e.chat, "/diff")
	e.awaitText(t, "+changed")

	e.tg.SendMessage(e.user, e.chat, "Send me the report.")
	e.awaitText(t, "Sent.")
	docs := e.tg.Documents(e.chat.ID)
	if len(docs) != 1 || docs[0].Document.FileName != "report.txt" {
		t.Fatalf("documents = %+v", docs)
	}
	if data, _ := e.tg.FileData(docs[0].FileID()); string(data) != "the report\n" {
		t.Errorf("the document holds %q", data)
	}
	// The request after send_file carries every tool result so far; its
	// own is the last.
	if rs := toolResults(api); len(rs) == 0 || rs[len(rs)-1].IsError || !strings.Contains(rs[len(rs)-1].Content, "Delivered "+work+"/report.txt") {
		t.Errorf("tool results %+v", rs)
	}

	e.tg.SendMessage(e.user, e.chat, "/status")
	st := e.awaitText(t, "Status")
	if !strings.Contains(st.Text, "Host: box") || !strings.Contains(st.Text, work) {
		t.Errorf("/status:\n%s", st.Text)
	}
}
