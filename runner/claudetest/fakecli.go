package claudetest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// FakeCLIEnv selects a script of the fake Claude Code CLI. A test binary
// whose TestMain calls RunFakeCLIIfRequested becomes that fake when
// started with this variable set, so the runner can be tested against a
// real process with scripted misbehaviour (crashes, hangs, huge lines).
const FakeCLIEnv = "UNTETHER_FAKE_CLAUDE"

// FakeCLIEnvFor returns the environment entry that selects script.
func FakeCLIEnvFor(script string) string { return FakeCLIEnv + "=" + script }

// RunFakeCLIIfRequested turns the current process into the fake CLI and
// exits when FakeCLIEnv is set; otherwise it returns at once.
func RunFakeCLIIfRequested() {
	script := os.Getenv(FakeCLIEnv)
	if script == "" {
		return
	}
	f := &fake{script: script, out: bufio.NewWriter(os.Stdout), answers: make(chan map[string]any, 16)}
	os.Exit(f.run(os.Args[1:]))
}

type fake struct {
	script  string
	out     *bufio.Writer
	answers chan map[string]any // control_response bodies from the host
	session string
	mode    string
	turns   int
	stop    chan struct{} // closed on interrupt during a turn
	// total is the session's running total, reported in every result like
	// the real CLI's total_cost_usd: it continues across --resume (the real
	// CLI keeps it in the session's transcript; the fake in FakeTotalFile).
	total float64
	// spent and budget are --max-budget-usd, which the real CLI counts
	// per process (docs/protocol.md).
	spent, budget float64
}

// FakeTurnCost is what every turn of the fake CLI costs.
const FakeTurnCost = 0.01

// FakeTotalFile is where the fake CLI keeps a session's running total,
// relative to its working directory.
func FakeTotalFile(session string) string {
	return filepath.Join(".claude", "fake-total-"+session)
}

func (f *fake) emit(v any) {
	b, _ := json.Marshal(v)
	f.out.Write(b)
	f.out.WriteByte('\n')
	f.out.Flush()
}

func (f *fake) run(args []string) int {
	if slices.Contains(args, "--version") {
		// What the real CLI prints; untether doctor shows it.
		fmt.Println("0.0.0-fake (Claude Code)")
		return 0
	}
	f.session = "fake-session-1"
	if f.script == "noresume" {
		f.session = "fake-session-fresh" // tell the fallback session from the one that failed
	}
	f.mode = "default"
	if i := slices.Index(args, "--resume"); i >= 0 && i+1 < len(args) {
		f.session = args[i+1]
		if f.script == "noresume" {
			// The real CLI's answer to a session it does not have.
			fmt.Fprintf(os.Stderr, "No conversation found with session ID: %s\n", f.session)
			return 1
		}
		if raw, err := os.ReadFile(FakeTotalFile(f.session)); err == nil {
			f.total, _ = strconv.ParseFloat(string(raw), 64)
		}
	}
	if i := slices.Index(args, "--max-budget-usd"); i >= 0 && i+1 < len(args) {
		f.budget, _ = strconv.ParseFloat(args[i+1], 64)
	}
	if i := slices.Index(args, "--permission-mode"); i >= 0 && i+1 < len(args) {
		f.mode = args[i+1]
	}
	if f.script == "ignore_term" || f.script == "hang" {
		signal.Ignore(syscall.SIGTERM)
	}
	if i := slices.Index(args, "--"); i >= 0 {
		return f.oneShot(args[i+1:])
	}
	lines := make(chan map[string]any)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
		close(lines)
	}()
	var prompts []string
	for {
		if len(prompts) > 0 {
			p := prompts[0]
			prompts = prompts[1:]
			if code := f.turn(p, lines, &prompts); code >= 0 {
				return code
			}
			continue
		}
		m, ok := <-lines
		if !ok {
			if f.script == "hang" || f.script == "ignore_term" {
				select {} // outlive stdin EOF; only SIGKILL ends us
			}
			return 0
		}
		f.dispatch(m, &prompts)
	}
}

// dispatch handles one host line outside a turn's own waiting.
func (f *fake) dispatch(m map[string]any, prompts *[]string) {
	switch m["type"] {
	case "user":
		msg, _ := m["message"].(map[string]any)
		text, _ := msg["content"].(string)
		*prompts = append(*prompts, text)
	case "control_request":
		id, _ := m["request_id"].(string)
		req, _ := m["request"].(map[string]any)
		switch req["subtype"] {
		case "interrupt":
			if f.stop != nil {
				close(f.stop)
				f.stop = nil
			}
			f.reply(id, map[string]any{"still_queued": []any{}})
		case "set_permission_mode":
			mode, _ := req["mode"].(string)
			if mode == "bogus" {
				f.emit(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "error", "request_id": id, "error": "Cannot set permission mode: must be one of acceptEdits, auto, bypassPermissions, default, dontAsk, plan"}})
				return
			}
			if f.script == "deaf" {
				return // never answers: the host must time out
			}
			f.mode = mode
			f.reply(id, map[string]any{"mode": mode})
			f.emit(map[string]any{"type": "system", "subtype": "status", "status": nil, "permissionMode": mode, "session_id": f.session})
		default:
			f.emit(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "error", "request_id": id, "error": fmt.Sprintf("Unsupported control request subtype: %v", req["subtype"])}})
		}
	case "control_response":
		resp, _ := m["response"].(map[string]any)
		f.answers <- resp
	}
}

func (f *fake) reply(id string, body map[string]any) {
	f.emit(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": id, "response": body}})
}

// wait blocks until the host answers a control request of ours, handling
// other host lines meanwhile (that is what the real CLI does).
func (f *fake) wait(lines chan map[string]any, prompts *[]string) (map[string]any, bool) {
	for {
		select {
		case a := <-f.answers:
			return a, true
		case m, ok := <-lines:
			if !ok {
				return nil, false
			}
			f.dispatch(m, prompts)
		}
	}
}

func (f *fake) init() {
	f.emit(map[string]any{"type": "system", "subtype": "init", "session_id": f.session, "cwd": mustWd(), "model": "fake-model",
		"permissionMode": f.mode, "tools": []string{"Bash", "Write"}, "claude_code_version": "0.0.0-fake"})
}

func (f *fake) text(s string) {
	f.emit(map[string]any{"type": "assistant", "session_id": f.session, "message": map[string]any{"id": "msg_1", "role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": s}}}})
}

// result ends a turn that cost FakeTurnCost. Like the real CLI, a turn
// that brings the process's spend to --max-budget-usd ends as
// error_max_budget_usd instead of with its answer.
func (f *fake) result(text string, isError bool, reason string) {
	f.charge(FakeTurnCost)
	r := map[string]any{"type": "result", "subtype": "success", "is_error": isError, "session_id": f.session, "num_turns": 1,
		"duration_ms": 12, "total_cost_usd": f.total, "terminal_reason": reason, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}
	switch {
	case reason == "aborted_streaming" || reason == "aborted_tools":
		r["subtype"] = "error_during_execution"
	case f.overBudget():
		f.budgetResult()
		return
	default:
		r["result"] = text
	}
	f.emit(r)
}

func (f *fake) overBudget() bool { return f.budget > 0 && f.spent >= f.budget }

// budgetResult is the real CLI's result when --max-budget-usd is reached.
func (f *fake) budgetResult() {
	f.emit(map[string]any{"type": "result", "subtype": "error_max_budget_usd", "is_error": true, "session_id": f.session,
		"num_turns": 1, "duration_ms": 12, "total_cost_usd": f.total, "terminal_reason": "budget_exhausted",
		"errors": []string{"Reached maximum budget ($" + strconv.FormatFloat(f.budget, 'f', -1, 64) + ")"}})
}

// charge adds usd to the session's total, kept for a later --resume.
func (f *fake) charge(usd float64) {
	f.total += usd
	f.spent += usd
	path := FakeTotalFile(f.session)
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		err = os.WriteFile(path, []byte(strconv.FormatFloat(f.total, 'g', -1, 64)), 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "fake claude: keep the session total: %v\n", err)
	}
}

// turn runs one scripted turn; a non-negative return makes the process exit.
func (f *fake) turn(prompt string, lines chan map[string]any, prompts *[]string) int {
	f.turns++
	f.init()
	if f.overBudget() {
		// The real CLI refuses every later turn of the process at once.
		f.budgetResult()
		return -1
	}
	switch f.script {
	case "echo", "hang", "ignore_term", "deaf", "noresume":
		f.text("echo: " + prompt)
		f.result("echo: "+prompt, false, "completed")
	case "args":
		env := map[string]bool{}
		for _, k := range []string{"ANTHROPIC_API_KEY", "CLAUDECODE", "UNTETHER_EXTRA"} {
			_, env[k] = os.LookupEnv(k)
		}
		b, _ := json.Marshal(map[string]any{"args": os.Args[1:], "env": env, "extra": os.Getenv("UNTETHER_EXTRA")})
		f.result(string(b), false, "completed")
	case "environ":
		// The whole environment, as a tool Claude runs would inherit it.
		f.result(strings.Join(os.Environ(), "\n"), false, "completed")
	case "approve":
		input := map[string]any{"command": "touch " + prompt}
		f.emit(map[string]any{"type": "assistant", "session_id": f.session, "message": map[string]any{"id": "msg_2",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": input}}}})
		f.emit(map[string]any{"type": "control_request", "request_id": fmt.Sprintf("req-%d", f.turns), "request": map[string]any{
			"subtype": "can_use_tool", "tool_name": "Bash", "input": input, "tool_use_id": "toolu_1",
			"permission_suggestions": []any{map[string]any{"type": "setMode", "mode": "acceptEdits", "destination": "session"}}}})
		a, ok := f.wait(lines, prompts)
		if !ok {
			return 0
		}
		body, _ := a["response"].(map[string]any)
		if body["behavior"] == "allow" {
			cmd := input["command"]
			if ui, ok := body["updatedInput"].(map[string]any); ok {
				cmd = ui["command"]
			}
			perms, _ := json.Marshal(body["updatedPermissions"])
			f.toolResult("toolu_1", fmt.Sprintf("ran %v perms=%s", cmd, perms), false)
			f.result(fmt.Sprintf("allowed: %v", cmd), false, "completed")
			return -1
		}
		f.toolResult("toolu_1", fmt.Sprint(body["message"]), true)
		if body["interrupt"] == true {
			f.result("", false, "aborted_tools")
			return -1
		}
		f.result(fmt.Sprintf("denied: %v", body["message"]), false, "completed")
	case "unknown_control":
		f.emit(map[string]any{"type": "control_request", "request_id": "mystery-1", "request": map[string]any{"subtype": "mystery"}})
		a, ok := f.wait(lines, prompts)
		if !ok {
			return 0
		}
		f.result(fmt.Sprintf("%v/%v/%v", a["subtype"], a["request_id"], a["error"]), false, "completed")
	case "slow":
		f.stop = make(chan struct{})
		stop := f.stop
		for i := 0; ; i++ {
			select {
			case <-stop:
				f.result("", false, "aborted_streaming")
				return -1
			case m, ok := <-lines:
				if !ok {
					return 0
				}
				f.dispatch(m, prompts)
			case <-time.After(20 * time.Millisecond):
				f.emit(map[string]any{"type": "stream_event", "event": map[string]any{"type": "content_block_delta",
					"delta": map[string]any{"type": "text_delta", "text": fmt.Sprintf("w%d ", i)}}})
			}
		}
	case "huge":
		f.text(strings.Repeat("x", 20<<20))
		f.text("after the huge line")
		f.result("survived", false, "completed")
	case "garbage":
		fmt.Fprintln(f.out, "this is not json")
		fmt.Fprintln(f.out, "")
		fmt.Fprintln(f.out, `{"type":"from_the_future","payload":[1,2,3]}`)
		fmt.Fprintln(f.out, `{"type":"assistant","message":"wrong shape"}`)
		fmt.Fprintln(f.out, `{"type":"keep_alive"}`)
		f.out.Flush()
		f.text("still fine")
		f.result("still fine", false, "completed")
	case "crash":
		f.text("about to crash")
		fmt.Fprintln(os.Stderr, "fatal: simulated crash in the fake CLI")
		return 3
	case "noresult":
		f.text("leaving without a result")
		return 0
	case "orphan":
		// A grandchild that keeps stdout open after we are gone.
		c := exec.Command("sleep", "300")
		c.Stdout = os.Stdout
		_ = c.Start()
		f.text("left a child behind")
		return 0
	case "api_error":
		f.text("API Error: 400 bad request")
		f.result("API Error: 400 bad request", true, "api_error")
	default:
		fmt.Fprintf(os.Stderr, "unknown fake script %q\n", f.script)
		return 2
	}
	return -1
}

func (f *fake) toolResult(id, content string, isError bool) {
	f.emit(map[string]any{"type": "user", "session_id": f.session, "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isError}}}})
}

func (f *fake) oneShot(rest []string) int {
	prompt := strings.Join(rest, " ")
	tty := isTerminal(os.Stdin)
	f.init()
	f.text("oneshot: " + prompt)
	f.result(fmt.Sprintf("oneshot: %s (stdin tty=%v)", prompt, tty), false, "completed")
	return 0
}

func mustWd() string {
	wd, _ := os.Getwd()
	return wd
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
