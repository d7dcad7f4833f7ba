package claudetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

type sseEvent struct {
	Name string
	Data map[string]any
}

// readSSE parses a server-sent event stream into events.
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var events []sseEvent
	var name string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var data map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &data); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
			if data["type"] != name {
				t.Errorf("event %q carries data type %v", name, data["type"])
			}
			events = append(events, sseEvent{Name: name, Data: data})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read stream: %v", err)
	}
	return events
}

// body builds a request body with the given roles as messages.
func body(stream bool, roles ...string) string {
	var msgs []map[string]any
	for i, role := range roles {
		msgs = append(msgs, map[string]any{"role": role, "content": []any{map[string]any{"type": "text", "text": "m" + string(rune('0'+i))}}})
	}
	b, _ := json.Marshal(map[string]any{"model": "claude-test-1", "stream": stream, "max_tokens": 100, "messages": msgs, "system": "sys"})
	return string(b)
}

func post(t *testing.T, api *API, path, b string) *http.Response {
	t.Helper()
	resp, err := http.Post(api.URL()+path, "application/json", strings.NewReader(b))
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func names(events []sseEvent) string {
	var s []string
	for _, e := range events {
		s = append(s, e.Name)
	}
	return strings.Join(s, ",")
}

func TestStreamTextReply(t *testing.T) {
	const text = "Hello there, this is the fake model."
	api := NewAPI(t, Say(text))
	resp := post(t, api, "/v1/messages?beta=true", body(true, "user", "system"))
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := readSSE(t, resp.Body)
	var got strings.Builder
	deltas := 0
	for _, e := range events {
		if e.Name == "content_block_delta" {
			d := e.Data["delta"].(map[string]any)
			if d["type"] != "text_delta" {
				t.Errorf("delta type %v", d["type"])
			}
			got.WriteString(d["text"].(string))
			deltas++
		}
	}
	if got.String() != text {
		t.Errorf("streamed text %q, want %q", got.String(), text)
	}
	if deltas < 2 {
		t.Errorf("text came in %d deltas, want it split", deltas)
	}
	want := "message_start,ping,content_block_start" + strings.Repeat(",content_block_delta", deltas) + ",content_block_stop,message_delta,message_stop"
	if names(events) != want {
		t.Errorf("events %s\nwant %s", names(events), want)
	}
	start := events[0].Data["message"].(map[string]any)
	if id, _ := start["id"].(string); !strings.HasPrefix(id, "msg_") || start["model"] != "claude-test-1" || start["role"] != "assistant" {
		t.Errorf("message_start message = %v", start)
	}
	md := events[len(events)-2].Data
	if md["delta"].(map[string]any)["stop_reason"] != "end_turn" || md["usage"].(map[string]any)["output_tokens"].(float64) < 1 {
		t.Errorf("message_delta = %v", md)
	}
}

func TestStreamToolUse(t *testing.T) {
	input := map[string]any{"command": "touch x.txt", "description": "Create ünïcode file x"}
	api := NewAPI(t, Answer(Text("Running."), ToolUse("Bash", input)))
	events := readSSE(t, post(t, api, "/v1/messages", body(true, "user")).Body)

	var partial strings.Builder
	pieces := 0
	var block map[string]any
	for _, e := range events {
		if e.Name == "content_block_start" && e.Data["index"].(float64) == 1 {
			block = e.Data["content_block"].(map[string]any)
		}
		if e.Name == "content_block_delta" && e.Data["index"].(float64) == 1 {
			d := e.Data["delta"].(map[string]any)
			if d["type"] != "input_json_delta" {
				t.Fatalf("tool delta type %v", d["type"])
			}
			partial.WriteString(d["partial_json"].(string))
			pieces++
		}
	}
	if block["type"] != "tool_use" || block["name"] != "Bash" || !strings.HasPrefix(block["id"].(string), "toolu_") {
		t.Fatalf("tool_use block start = %v", block)
	}
	if pieces < 2 {
		t.Errorf("input came in %d pieces, want it split", pieces)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(partial.String()), &got); err != nil {
		t.Fatalf("joined partial_json %q: %v", partial.String(), err)
	}
	if got["command"] != input["command"] || got["description"] != input["description"] {
		t.Errorf("input = %v, want %v", got, input)
	}
	if sr := events[len(events)-2].Data["delta"].(map[string]any)["stop_reason"]; sr != "tool_use" {
		t.Errorf("stop_reason %v, want tool_use", sr)
	}
}

func TestStepPickedByAssistantMessages(t *testing.T) {
	var seen *Request
	api := NewAPI(t,
		Say("zero"),
		StepFunc(func(req *Request) Reply { seen = req; return Say("one") }),
	)
	cases := []struct {
		roles []string
		want  string
	}{
		{[]string{"user", "system"}, "zero"},
		{[]string{"user", "system", "assistant", "user"}, "one"},
		{[]string{"user", "assistant", "user", "assistant", "user"}, "done"}, // past the script
	}
	for _, c := range cases {
		resp := post(t, api, "/v1/messages", body(false, c.roles...))
		var msg struct {
			Content []struct{ Text string }
		}
		if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
			t.Fatal(err)
		}
		if len(msg.Content) != 1 || msg.Content[0].Text != c.want {
			t.Errorf("roles %v: content %+v, want %q", c.roles, msg.Content, c.want)
		}
	}
	if seen == nil || seen.AssistantTurns() != 1 || seen.System != "sys" {
		t.Errorf("StepFunc saw %+v", seen)
	}
	if n := len(api.Requests()); n != 3 {
		t.Errorf("recorded %d requests, want 3", n)
	}
}

func TestNonStreamingToolUse(t *testing.T) {
	api := NewAPI(t, Answer(ToolUse("Write", map[string]any{"file_path": "/x", "content": "y"})))
	resp := post(t, api, "/v1/messages", body(false, "user"))
	var msg struct {
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type, ID, Name string
			Input          map[string]string
		}
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &msg); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	if msg.StopReason != "tool_use" || len(msg.Content) != 1 || msg.Content[0].Input["file_path"] != "/x" || msg.Content[0].Name != "Write" {
		t.Errorf("body %s", raw)
	}
}

func TestErrorStepRepeats(t *testing.T) {
	api := NewAPI(t, Err(400, "bad thing"))
	for i := range 3 { // the CLI retries a 400 with the identical request
		resp := post(t, api, "/v1/messages?beta=true", body(true, "user", "system"))
		var e struct {
			Type  string
			Error struct{ Type, Message string }
		}
		if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 400 || e.Type != "error" || e.Error.Type != "invalid_request_error" || e.Error.Message != "bad thing" {
			t.Errorf("try %d: status %d body %+v", i, resp.StatusCode, e)
		}
	}
	if r := Err(529, "busy"); r.errType() != "overloaded_error" {
		t.Errorf("529 error type %q", r.errType())
	}
}

func TestOtherPaths(t *testing.T) {
	api := NewAPI(t)
	resp := post(t, api, "/v1/messages/count_tokens", body(false, "user"))
	var ct struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ct); err != nil || resp.StatusCode != 200 || ct.InputTokens < 1 {
		t.Errorf("count_tokens: status %d, %+v, %v", resp.StatusCode, ct, err)
	}
	resp = post(t, api, "/v1/models", "{}")
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 404 || !strings.Contains(string(raw), `"not_found_error"`) {
		t.Errorf("unknown path: %d %s", resp.StatusCode, raw)
	}
	resp = post(t, api, "/v1/messages", "{not json")
	if resp.StatusCode != 400 {
		t.Errorf("bad JSON: status %d", resp.StatusCode)
	}
	want := []string{"POST /v1/messages/count_tokens", "POST /v1/models", "POST /v1/messages"}
	if got := api.OtherRequests(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("OtherRequests = %q, want %q", got, want)
	}
	if n := len(api.Requests()); n != 0 {
		t.Errorf("%d Messages requests recorded, want 0", n)
	}
}

func TestWaitRequests(t *testing.T) {
	api := NewAPI(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := api.WaitRequests(ctx, 1); err == nil {
		t.Fatal("WaitRequests with no request and a dead context returned no error")
	}
	done := make(chan []Request, 1)
	go func() {
		reqs, err := api.WaitRequests(context.Background(), 2)
		if err != nil {
			t.Error(err)
		}
		done <- reqs
	}()
	post(t, api, "/v1/messages", body(false, "user"))
	post(t, api, "/v1/messages", body(false, "user", "assistant", "user"))
	if reqs := <-done; len(reqs) != 2 || reqs[1].AssistantTurns() != 1 {
		t.Errorf("WaitRequests returned %d requests", len(reqs))
	}
}

// The slow stream's pauses run on the bubble's fake clock: exact timing and
// early exit on a client that goes away are checked without sleeping.
func TestSlowStreamTimingAndCancel(t *testing.T) {
	const delay = time.Minute
	serve := func(ctx context.Context, a *API) (*httptest.ResponseRecorder, time.Duration) {
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/v1/messages", strings.NewReader(body(true, "user")))
		rec := httptest.NewRecorder()
		start := time.Now()
		a.ServeHTTP(rec, req)
		return rec, time.Since(start)
	}
	synctestRun(t, "full", func(t *testing.T) {
		a := newAPI(t, Say("one two three").Slow(delay))
		rec, took := serve(context.Background(), a)
		events := readSSE(t, rec.Body)
		if n := strings.Count(names(events), "content_block_delta"); time.Duration(n)*delay != took || n != 3 {
			t.Errorf("%d deltas took %v, want 3 x %v", n, took, delay)
		}
	})
	synctestRun(t, "client gone", func(t *testing.T) {
		a := newAPI(t, Say("one two three").Slow(delay))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(delay+delay/2, cancel)
		rec, took := serve(ctx, a)
		if took != delay+delay/2 {
			t.Errorf("handler returned after %v, want %v", took, delay+delay/2)
		}
		got := rec.Body.String()
		if strings.Count(got, "event: content_block_delta") != 1 || strings.Contains(got, "message_stop") {
			t.Errorf("stream after cancel:\n%s", got)
		}
	})
	synctestRun(t, "api closed", func(t *testing.T) {
		a := newAPI(t, Say("one two").Slow(time.Hour))
		time.AfterFunc(time.Second, func() { close(a.closed) })
		if _, took := serve(context.Background(), a); took != time.Second {
			t.Errorf("handler returned after %v, want 1s", took)
		}
	})
}

func TestSplitters(t *testing.T) {
	for _, s := range []string{"", "a", "one two  three\n four ", "ünï cödé ✓✓✓ 日本語"} {
		if got := strings.Join(splitWords(s), ""); got != s {
			t.Errorf("splitWords(%q) joins to %q", s, got)
		}
		for _, n := range []int{1, 3, 7} {
			pieces := splitN(s, n)
			if strings.Join(pieces, "") != s || len(pieces) > max(n, 1) {
				t.Errorf("splitN(%q, %d) = %q", s, n, pieces)
			}
			for _, p := range pieces {
				if !bytes.Equal([]byte(strings.ToValidUTF8(p, "?")), []byte(p)) {
					t.Errorf("splitN(%q, %d) cut a rune: %q", s, n, p)
				}
			}
		}
	}
	if got := splitWords("a b c"); len(got) != 3 {
		t.Errorf("splitWords(a b c) = %q", got)
	}
}

func TestTimesRetiresStep(t *testing.T) {
	api := NewAPI(t, Err(400, "x").Times(2), Say("next"), Say("third"))
	status := func(roles ...string) (int, string) {
		resp := post(t, api, "/v1/messages", body(false, roles...))
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw)
	}
	for i := range 2 {
		if code, _ := status("user"); code != 400 {
			t.Fatalf("attempt %d: status %d, want 400", i, code)
		}
	}
	// No assistant message came of the errors; the retired step is skipped.
	if code, b := status("user", "user"); code != 200 || !strings.Contains(b, `"next"`) {
		t.Errorf("after retirement: %d %s", code, b)
	}
	if _, b := status("user", "user", "assistant", "user"); !strings.Contains(b, `"third"`) {
		t.Errorf("step after: %s", b)
	}
}

func TestHangAfter(t *testing.T) {
	synctestRun(t, "holds until client leaves", func(t *testing.T) {
		a := newAPI(t, Say("one two three").HangAfter(2))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Hour, cancel)
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/v1/messages", strings.NewReader(body(true, "user")))
		rec := httptest.NewRecorder()
		start := time.Now()
		a.ServeHTTP(rec, req)
		if took := time.Since(start); took != time.Hour {
			t.Errorf("handler returned after %v, want when the client left (1h)", took)
		}
		got := rec.Body.String()
		if n := strings.Count(got, "event: content_block_delta"); n != 2 || strings.Contains(got, "content_block_stop") {
			t.Errorf("%d deltas before the hang, stream:\n%s", n, got)
		}
	})
}

func TestLimitHeaders(t *testing.T) {
	resets := time.Unix(1795512768, 0)
	api := NewAPI(t, LimitReached("five_hour", resets), Say("ok").NearLimit("seven_day", 0.8, 0.75, resets).WithHeader("x-extra", "1"))
	resp := post(t, api, "/v1/messages?beta=true", body(true, "user"))
	h := resp.Header
	if resp.StatusCode != 429 || h.Get("anthropic-ratelimit-unified-status") != "rejected" ||
		h.Get("anthropic-ratelimit-unified-reset") != "1795512768" || h.Get("anthropic-ratelimit-unified-representative-claim") != "five_hour" {
		t.Errorf("limit reached: %d %v", resp.StatusCode, h)
	}
	resp = post(t, api, "/v1/messages?beta=true", body(true, "user", "assistant", "user"))
	h = resp.Header
	if resp.StatusCode != 200 || h.Get("anthropic-ratelimit-unified-status") != "allowed_warning" ||
		h.Get("anthropic-ratelimit-unified-7d-utilization") != "0.8" || h.Get("anthropic-ratelimit-unified-7d-surpassed-threshold") != "0.75" ||
		h.Get("x-extra") != "1" {
		t.Errorf("near limit: %d %v", resp.StatusCode, h)
	}
	env, _ := SubscriptionEnv(t, api.URL())
	if s := strings.Join(env, " "); strings.Contains(s, "ANTHROPIC_API_KEY") || !strings.Contains(s, "CLAUDE_CODE_OAUTH_TOKEN=") {
		t.Errorf("subscription env %q", env)
	}
}
