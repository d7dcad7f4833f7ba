package ssh_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/host/ssh"
)

// A fake ssh client, for what a real sshd cannot be made to do: an agent
// there that misbehaves (answers nothing, answers too much, answers
// without what it must). The test binary runs as "ssh" through a script
// naming it; the remote command decides what it does, the mode how the
// agent behaves. Every agent request is appended to the log file, one op
// a line.

const fakeSSHArg = "fake-ssh"

// fakeSSH is a host whose ssh client is the fake, with the agent behaving
// as mode says.
func fakeSSH(t *testing.T, mode string) (*ssh.Host, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: the control folder's path must be short.
	dir, err := os.MkdirTemp("", "fk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	log := filepath.Join(dir, "ops.log")
	script := filepath.Join(dir, "ssh")
	body := fmt.Sprintf("#!/bin/sh\nexec %q %s %q %q \"$@\"\n", self, fakeSSHArg, mode, log)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	h, err := ssh.New(ssh.Options{Name: "fake", Dest: "someone@fake", ControlDir: filepath.Join(dir, "ctl"), Agent: self, SSH: script})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, log
}

// patient is the context of a call whose answer a test waits for. A read
// without a deadline of its own gets safefile's (5 s), and that counts the
// whole call: starting the fake ssh (this race-built test binary) several
// times, placing the agent, and the agent building its answer (8 MiB
// encoded, 2M entries). A loaded machine took over 5 s for that, and the
// test failed on the deadline instead of on the answer. Two minutes only
// stop a call that hangs.
func patient(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// fakeSSHMain is the fake client: args are mode, log file, then ssh's own.
func fakeSSHMain(args []string) int {
	mode, logf, sshArgs := args[0], args[1], args[2:]
	for _, a := range sshArgs {
		if a == "-O" { // control commands: the master "is" there
			return 0
		}
	}
	remote := sshArgs[len(sshArgs)-1]
	switch {
	case strings.Contains(remote, "uname"):
		fmt.Println("Linux x86_64")
		fmt.Println("/tmp/untether-fake-home")
		if strings.Contains(remote, "sha256") {
			fmt.Println("ok")
		}
		return 0
	case strings.HasSuffix(remote, "host-agent exec"):
		return fakeExec(mode)
	case strings.HasSuffix(remote, "host-agent"):
		return fakeAgent(mode, logf)
	default: // placing the agent: take it, say nothing
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	}
}

// fakeExec is an exec session: "nopid" never says its pid, "endless"
// says a pid line that never ends.
func fakeExec(mode string) int {
	switch mode {
	case "nopid":
		time.Sleep(time.Minute)
	case "immortal": // says a pid, then never ends, whatever it is told
		fmt.Println("untether-pid 4242")
		time.Sleep(10 * time.Minute)
	case "endless":
		chunk := strings.Repeat("7", 1<<16)
		for range 1 << 10 { // 64 MiB, no newline
			if _, err := os.Stdout.WriteString(chunk); err != nil {
				return 255
			}
		}
		time.Sleep(time.Minute)
	}
	return 0
}

// fakeAgent answers requests as mode says:
//   - "noinfo": every answer empty, whatever was asked (no file info);
//   - "silent": reads requests and never answers;
//   - "huge": an "open" is answered with 8 MiB whatever its max;
//   - "drop": reads one request and ends without an answer.
func fakeAgent(mode, logf string) int {
	dec := json.NewDecoder(bufio.NewReader(os.Stdin))
	for {
		var req struct {
			Op  string `json:"op"`
			Max int64  `json:"max"`
		}
		if err := dec.Decode(&req); err != nil {
			return 0
		}
		switch req.Op {
		case "hello":
			fmt.Printf("{\"n\":%d}\n", 1)
			continue
		case "ident": // asked on each new session
			fmt.Println(`{"s":"1:2:3:4.5:100700"}`)
			continue
		}
		if f, err := os.OpenFile(logf, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintln(f, req.Op)
			f.Close()
		}
		switch mode {
		case "noinfo":
			fmt.Println("{}")
		case "silent":
			// never answers
		case "huge":
			if req.Op == "open" {
				_ = json.NewEncoder(os.Stdout).Encode(map[string]any{
					"info": map[string]any{"name": "f", "size": 8 << 20, "mode": 0o644},
					"data": make([]byte, 8<<20)})
			} else {
				fmt.Println("{}")
			}
		case "drop":
			return 255
		case "slow": // a healthy agent on a slow link: each answer after 1 s
			time.Sleep(time.Second)
			fmt.Println("{}")
		case "bigdir": // 2M empty entries: 6 MiB, under the listing's byte bound
			if req.Op == "readdir" {
				w := bufio.NewWriterSize(os.Stdout, 1<<20)
				w.WriteString(`{"entries":[`)
				for i := 0; i < 2<<20; i++ {
					w.WriteString(`{},`)
				}
				w.WriteString("{}]}\n")
				w.Flush()
			} else {
				fmt.Println("{}")
			}
		case "badname":
			fmt.Println(`{"entries":[{"name":"ok"},{"name":"../up"}]}`)
		case "bigchunk": // a file open in chunks whose chunk is 8 MiB
			switch req.Op {
			case "fopen":
				fmt.Println(`{"n":1,"info":{"name":"f","size":8388608,"mode":420}}`)
			case "fread":
				_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"data": make([]byte, 8<<20)})
			default:
				fmt.Println("{}")
			}
		default:
			fmt.Println("{}")
		}
	}
}

// readLog is the ops the fake agent was asked, in order.
func readLog(t *testing.T, logf string) []string {
	t.Helper()
	b, err := os.ReadFile(logf)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}
