package runner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/untether/untether/engine"
)

var update = flag.Bool("update", false, "rewrite golden files")

// recordedLines returns the stdout lines ("out") of a recorded real run.
func recordedLines(t testing.TB, name string) [][]byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".io.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var rec struct {
			Dir string          `json:"dir"`
			Msg json.RawMessage `json:"msg"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rec.Dir == "out" {
			out = append(out, rec.Msg)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func summarize(ev engine.Event) string {
	switch e := ev.(type) {
	case engine.SessionStarted:
		return fmt.Sprintf("session_started id=%s model=%s mode=%s cwd=%s tools=%d version=%s", e.SessionID, e.Model, e.PermissionMode, e.Cwd, len(e.Tools), e.Version)
	case engine.ActionStarted:
		s := fmt.Sprintf("action_started id=%s parent=%s tool=%s kind=%s title=%q", e.ToolUseID, e.ParentToolUseID, e.Tool, e.Kind, e.Title)
		if e.Partial {
			s += " partial=true"
		}
		return s
	case engine.ActionCompleted:
		return fmt.Sprintf("action_completed id=%s ok=%v detail=%q", e.ToolUseID, e.OK, e.Detail)
	case engine.Text:
		return fmt.Sprintf("text partial=%v msg=%s %q", e.Partial, e.MessageID, e.Text)
	case engine.Thinking:
		return fmt.Sprintf("thinking %q", e.Text)
	case engine.ApprovalRequest:
		return fmt.Sprintf("approval id=%s tool=%s tool_use=%s blocked=%q desc=%q suggestions=%d reason=%s user_interaction=%v input=%s",
			e.RequestID, e.ToolName, e.ToolUseID, e.BlockedPath, e.Description, len(e.Suggestions), e.DecisionReasonType, e.RequiresUserInteraction, e.Input)
	case engine.PermissionModeChanged:
		return "mode_changed " + e.Mode
	case engine.PermissionDenied:
		return fmt.Sprintf("permission_denied tool=%s id=%s %q", e.ToolName, e.ToolUseID, e.Message)
	case engine.Compacted:
		return fmt.Sprintf("compacted trigger=%s pre=%d", e.Trigger, e.PreTokens)
	case engine.TurnCompleted:
		return fmt.Sprintf("turn_completed ok=%v outcome=%s reason=%s turns=%d cost=%.6f duration=%s usage=%+v denials=%d result=%q error=%q",
			e.OK, e.Outcome, e.Reason, e.NumTurns, e.SessionCostUSD, e.Duration, e.Usage, len(e.Denials), e.Result, e.ErrorText)
	case engine.RateLimited:
		return "rate_limited"
	case engine.Exited:
		return fmt.Sprintf("exited code=%d signal=%s mid_turn=%v", e.ExitCode, e.Signal, e.MidTurn)
	}
	return fmt.Sprintf("unknown %T", ev)
}

// TestDecodeRecordings replays every recorded real run through the decoder
// and compares the normalized events with a reviewed golden file.
func TestDecodeRecordings(t *testing.T) {
	files, err := filepath.Glob("testdata/*.io.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".io.jsonl")
		t.Run(name, func(t *testing.T) {
			dec := newDecoder("/home/user/project")
			var b strings.Builder
			for _, raw := range recordedLines(t, name) {
				d, err := dec.decode(raw)
				if err != nil {
					t.Fatalf("recorded line failed to decode: %v\n%s", err, raw)
				}
				for _, ev := range d.events {
					b.WriteString(summarize(ev))
					b.WriteByte('\n')
				}
				if d.request != nil && d.request.Subtype != "can_use_tool" {
					fmt.Fprintf(&b, "control_request subtype=%s\n", d.request.Subtype)
				}
				if d.response != nil {
					fmt.Fprintf(&b, "control_response id=%s subtype=%s\n", d.response.RequestID, d.response.Subtype)
				}
			}
			golden := filepath.Join("testdata", name+".events.golden")
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("events differ from %s:\n--- got\n%s\n--- want\n%s", golden, got, want)
			}
		})
	}
}

func TestDecodeAPIErrorIsNotOK(t *testing.T) {
	dec := newDecoder("")
	var last engine.TurnCompleted
	for _, raw := range recordedLines(t, "x_api_error_400") {
		d, err := dec.decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range d.events {
			if tc, ok := ev.(engine.TurnCompleted); ok {
				last = tc
			}
		}
	}
	if last.OK || last.Outcome != engine.OutcomeFailed || last.Reason != "success/api_error" || !strings.Contains(last.ErrorText, "400") {
		t.Fatalf("API error must be a failed turn, got %+v", last)
	}
}

func TestDecodeLenient(t *testing.T) {
	dec := newDecoder("/w")
	cases := map[string]int{ // line → number of events
		`{"type":"keep_alive"}`:                                         0,
		`{"type":"brand_new_type","x":1}`:                               0,
		`{"type":"system","subtype":"surprise"}`:                        0,
		`{"type":"assistant","message":{"content":"hello"}}`:            1,
		`{"type":"assistant","message":{"content":[{"type":"image"}]}}`: 0,
		`{"type":"assistant","message":null}`:                           0,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/w/a/b.go"}}]}}`: 1,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"}]}]}}`:   1,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"again"}]}}`:                         0,
		`{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"auto","pre_tokens":170000}}`:                    1,
		`{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"par"}}}`:                   1,
		`{"type":"stream_event","event":"weird"}`:          0,
		`{"type":"rate_limit_event","rate_limit_info":{}}`: 1,
	}
	// Map order is random but the decoder state matters for t1; run in a fixed order.
	order := []string{
		`{"type":"keep_alive"}`, `{"type":"brand_new_type","x":1}`, `{"type":"system","subtype":"surprise"}`,
		`{"type":"assistant","message":{"content":"hello"}}`, `{"type":"assistant","message":{"content":[{"type":"image"}]}}`,
		`{"type":"assistant","message":null}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/w/a/b.go"}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"}]}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"again"}]}}`,
		`{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"auto","pre_tokens":170000}}`,
		`{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"text_delta","text":"par"}}}`,
		`{"type":"stream_event","event":"weird"}`, `{"type":"rate_limit_event","rate_limit_info":{}}`,
	}
	if len(order) != len(cases) {
		t.Fatal("order and cases disagree")
	}
	for _, l := range order {
		d, err := dec.decode([]byte(l))
		if err != nil {
			t.Errorf("%s: unexpected error %v", l, err)
			continue
		}
		if len(d.events) != cases[l] {
			t.Errorf("%s: got %d events %v, want %d", l, len(d.events), d.events, cases[l])
		}
	}
	// The relative path comes from toolkinds via the work dir.
	d, _ := newDecoder("/w").decode([]byte(order[6]))
	if a := d.events[0].(engine.ActionStarted); a.Title != "a/b.go" || a.Kind != "file_change" {
		t.Errorf("tool_use became %+v", a)
	}
	for _, bad := range []string{`not json`, `{"type":`, `[1,2]`} {
		if _, err := dec.decode([]byte(bad)); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestLineReader(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 300<<10)
	input := "a\n" + string(big) + "\n\nlast-no-newline"
	lr := newLineReader(strings.NewReader(input), 100<<10)
	var got []string
	var skipped []int
	for {
		line, sk, err := lr.next()
		if err != nil {
			break
		}
		if sk > 0 {
			skipped = append(skipped, sk)
			continue
		}
		got = append(got, string(line))
	}
	if strings.Join(got, "|") != "a||last-no-newline" {
		t.Errorf("lines = %q", got)
	}
	if len(skipped) != 1 || skipped[0] != len(big)+1 {
		t.Errorf("skipped = %v, want one line of %d bytes", skipped, len(big)+1)
	}
	// A line exactly at the cap is kept.
	lr = newLineReader(strings.NewReader(string(big[:1000])+"\n"), 1000)
	if line, sk, err := lr.next(); err != nil || sk != 0 || len(line) != 1000 {
		t.Errorf("line at cap: len=%d skipped=%d err=%v", len(line), sk, err)
	}
}

func BenchmarkDecodeRecordedSession(b *testing.B) {
	var lines [][]byte
	var size int64
	for _, name := range []string{"d_plan_allow", "c_perm_allow", "e_interrupt_stream", "f_resume", "h_ask_user_question", "i_read_edit"} {
		for _, l := range recordedLines(b, name) {
			lines = append(lines, l)
			size += int64(len(l)) + 1
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		dec := newDecoder("/home/user/project")
		for _, l := range lines {
			if _, err := dec.decode(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}
