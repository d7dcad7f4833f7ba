package claudetest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests run the real claude binary (UNTETHER_TEST_CLAUDE) directly
// against the fake API: they prove the fake speaks the protocol well enough.

const cliTimeout = 60 * time.Second

// cli is one claude process in interactive stream-json mode.
type cli struct {
	t     *testing.T
	ctx   context.Context
	stdin io.WriteCloser
	lines chan map[string]any
	cmd   *exec.Cmd
	dir   string
	home  string

	readers sync.WaitGroup // stdout and stderr readers

	mu  sync.Mutex
	log []string // stdout and stderr lines, dumped when a test fails
}

func startCLI(t *testing.T, api *API, home string, extra ...string) *cli {
	t.Helper()
	bin := Binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	t.Cleanup(cancel)

	env, freshHome := Env(t, api.URL())
	if home == "" {
		home = freshHome
	} else {
		env = append(slicesWithout(env, "HOME="), "HOME="+home)
	}
	dir := filepath.Join(home, "project")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-p", "--verbose", "--input-format", "stream-json", "--output-format", "stream-json",
		"--permission-prompt-tool", "stdio"}, extra...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &cli{t: t, ctx: ctx, stdin: stdin, lines: make(chan map[string]any, 256), cmd: cmd, dir: dir, home: home}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	c.readers.Add(2)
	go func() {
		defer c.readers.Done()
		defer close(c.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 4<<20), 4<<20)
		for sc.Scan() {
			c.note("out: " + sc.Text())
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				continue // not every stdout line needs to be JSON for these tests
			}
			c.lines <- m
		}
	}()
	go func() {
		defer c.readers.Done()
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			c.note("err: " + sc.Text())
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		cancel() // kills the process if it has not exited on EOF
		for range c.lines {
		}
		c.readers.Wait()
		_ = cmd.Wait() // the exit status after a kill says nothing
		if t.Failed() {
			c.mu.Lock()
			t.Logf("claude output:\n%s", strings.Join(c.log, "\n"))
			c.mu.Unlock()
		}
	})
	return c
}

// exit closes stdin, reads stdout to its end and waits for the process, as
// the CLI does at the end of a session.
func (c *cli) exit() error {
	_ = c.stdin.Close()
	for {
		select {
		case _, ok := <-c.lines:
			if ok {
				continue
			}
		case <-c.ctx.Done():
			return fmt.Errorf("claude did not exit after stdin EOF: %w", c.ctx.Err())
		}
		break
	}
	c.readers.Wait()
	if err := c.cmd.Wait(); err != nil {
		return fmt.Errorf("claude exit: %w", err)
	}
	return nil
}

func slicesWithout(env []string, prefix string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, prefix) {
			out = append(out, kv)
		}
	}
	return out
}

func (c *cli) note(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log = append(c.log, s)
}

func (c *cli) send(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.note("in:  " + string(b))
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("write to claude: %v", err)
	}
}

func (c *cli) sendUser(text string) {
	c.t.Helper()
	c.send(map[string]any{"type": "user", "session_id": "", "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": text}})
}

// until reads stdout lines until match accepts one, failing on timeout or EOF.
func (c *cli) until(what string, match func(m map[string]any) bool) map[string]any {
	c.t.Helper()
	for {
		select {
		case m, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("claude closed stdout before %s", what)
			}
			if match(m) {
				return m
			}
		case <-c.ctx.Done():
			c.t.Fatalf("no %s from claude: %v", what, c.ctx.Err())
		}
	}
}

func (c *cli) result() map[string]any {
	c.t.Helper()
	return c.until("result line", func(m map[string]any) bool { return m["type"] == "result" })
}

// canUseTool waits for the permission request for tool and returns its request_id and request.
func (c *cli) canUseTool(tool string) (string, map[string]any) {
	c.t.Helper()
	m := c.until("can_use_tool for "+tool, func(m map[string]any) bool {
		if m["type"] == "result" {
			c.t.Fatalf("turn ended without asking about %s: %v", tool, m)
		}
		req, _ := m["request"].(map[string]any)
		return m["type"] == "control_request" && req["subtype"] == "can_use_tool" && req["tool_name"] == tool
	})
	return m["request_id"].(string), m["request"].(map[string]any)
}

func (c *cli) allow(requestID string, input any) {
	c.t.Helper()
	c.send(map[string]any{"type": "control_response", "response": map[string]any{
		"subtype": "success", "request_id": requestID,
		"response": map[string]any{"behavior": "allow", "updatedInput": input}}})
}

func TestCLIPlainText(t *testing.T) {
	const answer = "Hello from the scripted model."
	api := NewAPI(t, Say(answer))
	c := startCLI(t, api, "")
	c.sendUser("Say hello.")
	res := c.result()
	if res["subtype"] != "success" || res["is_error"] != false || res["result"] != answer {
		t.Fatalf("result = %v", res)
	}
	reqs := api.Requests()
	if len(reqs) != 1 || !strings.HasPrefix(reqs[0].Path, "/v1/messages") || !reqs[0].Stream {
		t.Fatalf("requests: %d, first %+v", len(reqs), reqs[0].Path)
	}
	if texts := reqs[0].UserTexts(); len(texts) == 0 || texts[len(texts)-1] != "Say hello." {
		t.Errorf("user texts sent to the model: %q", texts)
	}
	if other := api.OtherRequests(); len(other) != 0 {
		t.Errorf("unexpected extra requests: %q", other)
	}
}

func TestCLIBashApprovalAndToolResult(t *testing.T) {
	api := NewAPI(t,
		Answer(Text("Creating the file."), ToolUse("Bash", map[string]any{"command": "touch x.txt && echo made-it", "description": "Create x.txt"})),
		Say("Created x.txt."),
	)
	c := startCLI(t, api, "")
	c.sendUser("Create x.txt.")
	id, req := c.canUseTool("Bash")
	input := req["input"].(map[string]any)
	if input["command"] != "touch x.txt && echo made-it" {
		t.Errorf("can_use_tool input = %v", input)
	}
	c.allow(id, input)
	if res := c.result(); res["result"] != "Created x.txt." || res["is_error"] != false {
		t.Fatalf("result = %v", res)
	}
	if _, err := os.Stat(filepath.Join(c.dir, "x.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	reqs := api.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	results := reqs[1].ToolResults()
	if len(results) != 1 || results[0].IsError || !strings.Contains(results[0].Content, "made-it") {
		t.Errorf("tool results in the follow-up request: %+v", results)
	}
	var toolUseID string
	for _, m := range reqs[1].Messages {
		for _, b := range m.Content {
			if m.Role == "assistant" && b.Type == "tool_use" {
				toolUseID = b.ID
			}
		}
	}
	if toolUseID == "" || results[0].ToolUseID != toolUseID {
		t.Errorf("tool_result is for %q, the assistant's tool_use was %q", results[0].ToolUseID, toolUseID)
	}
}

func TestCLIPlanModeWritesPlanFile(t *testing.T) {
	const plan = "# Plan\n\n1. Write result.txt\n"
	var planPath string
	api := NewAPI(t,
		StepFunc(func(req *Request) Reply {
			planPath = PlanFilePath(req)
			if planPath == "" {
				return Err(400, "test: the CLI named no plan file")
			}
			return Answer(ToolUse("Write", map[string]any{"file_path": planPath, "content": plan}))
		}),
		Answer(ToolUse("ExitPlanMode", map[string]any{})),
		Say("Plan approved."),
	)
	c := startCLI(t, api, "", "--permission-mode", "plan")
	c.sendUser("Plan it.")
	id, req := c.canUseTool("ExitPlanMode")
	input := req["input"].(map[string]any)
	if input["plan"] != plan || input["planFilePath"] != planPath {
		t.Errorf("ExitPlanMode input = %v, want plan from %s", input, planPath)
	}
	if !strings.HasPrefix(planPath, filepath.Join(c.home, ".claude", "plans")+"/") {
		t.Errorf("plan path %q is not under the test HOME %s", planPath, c.home)
	}
	c.allow(id, input)
	if res := c.result(); res["result"] != "Plan approved." {
		t.Fatalf("result = %v", res)
	}
	got, err := os.ReadFile(planPath)
	if err != nil || string(got) != plan {
		t.Errorf("plan file: %q, %v", got, err)
	}
}

func (c *cli) interrupt(id string) {
	c.t.Helper()
	c.send(map[string]any{"type": "control_request", "request_id": id, "request": map[string]any{"subtype": "interrupt"}})
}

// A stream cut after some text leaves the partial text in the conversation,
// so the next turn is the next step of the script.
func TestCLIInterruptMidStream(t *testing.T) {
	api := NewAPI(t, Say("one two three four five").HangAfter(2), Say("after the interrupt"))
	c := startCLI(t, api, "", "--include-partial-messages")
	c.sendUser("Talk a lot.")
	c.until("a streamed text delta", func(m map[string]any) bool {
		ev, _ := m["event"].(map[string]any)
		delta, _ := ev["delta"].(map[string]any)
		return m["type"] == "stream_event" && delta["type"] == "text_delta"
	})
	c.interrupt("host-1")
	res := c.result()
	if res["subtype"] != "error_during_execution" || res["terminal_reason"] != "aborted_streaming" {
		t.Fatalf("interrupted result = %v", res)
	}
	c.sendUser("Go on.")
	if res := c.result(); res["result"] != "after the interrupt" {
		t.Fatalf("next turn result = %v", res)
	}
	reqs := api.Requests()
	last := reqs[len(reqs)-1]
	var partial string
	for _, m := range last.Messages {
		if m.Role == "assistant" {
			partial += joinText(m.Content)
		}
	}
	if !strings.HasPrefix("one two three four five", partial) || partial == "" {
		t.Errorf("assistant text after the interrupt = %q, want a prefix of the scripted text", partial)
	}
}

// A stream cut before any delta leaves nothing in the conversation: Times(1)
// moves the script on anyway.
func TestCLIInterruptBeforeContent(t *testing.T) {
	api := NewAPI(t, Say("never seen").HangAfter(0).Times(1), Say("after the interrupt"))
	c := startCLI(t, api, "")
	c.sendUser("Talk a lot.")
	if _, err := api.WaitRequests(c.ctx, 1); err != nil {
		t.Fatal(err)
	}
	c.interrupt("host-1")
	res := c.result()
	if res["subtype"] != "error_during_execution" {
		t.Fatalf("interrupted result = %v", res)
	}
	t.Logf("interrupt before content: terminal_reason=%v", res["terminal_reason"])
	c.sendUser("Go on.")
	if res := c.result(); res["result"] != "after the interrupt" {
		t.Fatalf("next turn result = %v", res)
	}
	reqs := api.Requests()
	if n := reqs[len(reqs)-1].AssistantTurns(); n != 0 {
		t.Errorf("request after the interrupt carries %d assistant messages, want 0", n)
	}
}

func TestCLIResumeCarriesConversation(t *testing.T) {
	api := NewAPI(t, Say("first answer"), Say("second answer"))
	c := startCLI(t, api, "")
	c.sendUser("First.")
	res := c.result()
	sessionID, _ := res["session_id"].(string)
	if res["result"] != "first answer" || sessionID == "" {
		t.Fatalf("first result = %v", res)
	}
	if err := c.exit(); err != nil {
		t.Fatal(err)
	}

	c2 := startCLI(t, api, c.home, "--resume", sessionID)
	c2.sendUser("Second.")
	if res := c2.result(); res["result"] != "second answer" || res["session_id"] != sessionID {
		t.Fatalf("resumed result = %v", res)
	}
	reqs := api.Requests()
	all := reqs[len(reqs)-1].AllText()
	for _, want := range []string{"First.", "first answer", "Second."} {
		if !strings.Contains(all, want) {
			t.Errorf("resumed request lacks %q", want)
		}
	}
}

func TestCLIAPIErrorThenRecovery(t *testing.T) {
	const attempts = 6 // measured: the CLI tries a 400 six times, then gives up
	api := NewAPI(t, Err(400, "fake: rejected").Times(attempts), Say("recovered"))
	c := startCLI(t, api, "")
	start := time.Now()
	c.sendUser("Fail please.")
	res := c.result()
	if res["is_error"] != true || !strings.Contains(fmt.Sprint(res["result"]), "fake: rejected") || res["terminal_reason"] != "api_error" {
		t.Fatalf("result = %v", res)
	}
	if n := len(api.Requests()); n != attempts {
		t.Errorf("the CLI sent %d requests for a 400, want %d", n, attempts)
	}
	t.Logf("API error result after %v: subtype=%v", time.Since(start), res["subtype"])
	c.sendUser("Again.")
	if res := c.result(); res["result"] != "recovered" || res["is_error"] != false {
		t.Fatalf("turn after the error: %v", res)
	}
}
