package runner

import (
	"testing"
	"time"

	"github.com/untether/untether/engine"
)

// Lines as CLI 2.1.330 wrote them (measured with the fake API, see
// docs/protocol.md; long fields cut).
const (
	lineRejected    = `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1795512768,"rateLimitType":"five_hour","isUsingOverage":false},"uuid":"1b71","session_id":"6ae3"}`
	lineWarning     = `{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1795512769,"rateLimitType":"five_hour","utilization":0.92,"isUsingOverage":false,"surpassedThreshold":0.9,"unifiedWindows":{"five_hour":{"utilization":0.92,"resetsAt":1795512769,"surpassedThreshold":0.9}}},"uuid":"b456","session_id":"6186"}`
	lineRetry       = `{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"retry_delay_ms":3316,"error_status":429,"error":"rate_limit","session_id":"6d41","uuid":"21f1"}`
	lineCompacting  = `{"type":"system","subtype":"status","status":"compacting","compact_output_chars":0,"session_id":"ca69","uuid":"97e4"}`
	lineCompactDone = `{"type":"system","subtype":"status","status":null,"compact_result":"success","session_id":"ca69","uuid":"1a4c"}`
	lineBoundary    = `{"type":"system","subtype":"compact_boundary","uuid":"29a7","compact_metadata":{"trigger":"auto","pre_tokens":985004,"post_tokens":2616,"cumulative_dropped_tokens":982388,"duration_ms":58},"session_id":"ca69"}`
	lineSynthetic   = `{"type":"assistant","message":{"id":"3100","model":"<synthetic>","role":"assistant","usage":{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"content":[{"type":"text","text":"You've hit your 5-hour limit · resets 9:32am (UTC)"}]},"parent_tool_use_id":null,"session_id":"6ae3","error":"rate_limit","is_api_error_message":true,"api_error_status":429,"api_error":"usage_limit_reached"}`
	lineLimitResult = `{"duration_api_ms":0,"session_id":"6ae3","total_cost_usd":0,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0},"modelUsage":{},"permission_denials":[],"terminal_reason":"api_error","is_error":true,"num_turns":1,"subtype":"success","api_error_status":429,"api_error_type":"rate_limit_error","api_error":"usage_limit_reached","result":"You've hit your 5-hour limit · resets 9:32am (UTC)","type":"result","duration_ms":158}`
	lineCall1       = `{"type":"assistant","message":{"content":[{"id":"toolu_1","input":{"command":"echo hi"},"name":"Bash","type":"tool_use"}],"id":"msg_2f","model":"claude-opus-5-5","role":"assistant","usage":{"cache_creation_input_tokens":100,"cache_read_input_tokens":13000,"input_tokens":378,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"562f"}`
	lineSubagent    = `{"type":"assistant","message":{"content":[{"text":"sub","type":"text"}],"id":"msg_s","model":"claude-haiku-5","role":"assistant","usage":{"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"input_tokens":90000,"output_tokens":1}},"parent_tool_use_id":"toolu_1","session_id":"562f"}`
	lineCall2       = `{"type":"assistant","message":{"content":[{"text":"ran","type":"text"}],"id":"msg_9d","model":"claude-opus-5-5","role":"assistant","usage":{"cache_creation_input_tokens":44,"cache_read_input_tokens":13478,"input_tokens":22,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"562f"}`
	lineResult      = `{"duration_api_ms":70,"stop_reason":"end_turn","session_id":"562f","total_cost_usd":0.16,"usage":{"input_tokens":27022,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":8},"modelUsage":{"claude-haiku-5":{"inputTokens":90000,"contextWindow":200000},"claude-opus-5-5":{"inputTokens":40475,"outputTokens":11,"costUSD":0.16,"contextWindow":1000000,"maxOutputTokens":128000}},"permission_denials":[],"terminal_reason":"completed","is_error":false,"num_turns":2,"subtype":"success","api_error_status":null,"result":"ran","type":"result","duration_ms":80}`
)

func decodeOne(t *testing.T, d *decoder, l string) engine.Event {
	t.Helper()
	out, err := d.decode([]byte(l))
	if err != nil {
		t.Fatalf("%s: %v", l, err)
	}
	if len(out.events) != 1 {
		t.Fatalf("%s: %d events %v, want 1", l, len(out.events), out.events)
	}
	return out.events[0]
}

func TestDecodeRateLimit(t *testing.T) {
	d := newDecoder("/w")
	rej := decodeOne(t, d, lineRejected).(engine.RateLimited)
	if rej.Status != engine.LimitReached || rej.Limit != "five_hour" || !rej.ResetsAt.Equal(time.Unix(1795512768, 0)) || rej.Utilization != 0 || string(rej.Raw) != lineRejected {
		t.Errorf("rejected: %+v", rej)
	}
	warn := decodeOne(t, d, lineWarning).(engine.RateLimited)
	if warn.Status != engine.LimitWarning || warn.Limit != "five_hour" || warn.Utilization != 0.92 || warn.ResetsAt.IsZero() {
		t.Errorf("warning: %+v", warn)
	}
	// The synthetic message of the refused call says nothing about the
	// context; the result names the API error.
	decodeOne(t, d, lineSynthetic)
	tc := decodeOne(t, d, lineLimitResult).(engine.TurnCompleted)
	if tc.OK || tc.Outcome != engine.OutcomeUsageLimit || !saidReason(tc, "usage_limit_reached") || tc.ContextTokens != 0 || tc.ContextWindow != 0 {
		t.Errorf("result after the limit: %+v", tc)
	}
	// A shape we do not know is still an event, with what could be read.
	if odd := decodeOne(t, d, `{"type":"rate_limit_event","rate_limit_info":{"status":7}}`).(engine.RateLimited); odd.Status != "" {
		t.Errorf("odd info: %+v", odd)
	}
}

func TestDecodeRetryAndCompaction(t *testing.T) {
	d := newDecoder("/w")
	if r := decodeOne(t, d, lineRetry).(engine.APIRetry); r != (engine.APIRetry{Attempt: 2, MaxRetries: 10, Delay: 3316 * time.Millisecond, HTTPStatus: 429, Error: "rate_limit"}) {
		t.Errorf("retry: %+v", r)
	}
	if _, ok := decodeOne(t, d, lineCompacting).(engine.Compacting); !ok {
		t.Error("status compacting is not Compacting")
	}
	if out, err := d.decode([]byte(lineCompactDone)); err != nil || len(out.events) != 0 {
		t.Errorf("status null: %v %v", out.events, err)
	}
	if c := decodeOne(t, d, lineBoundary).(engine.Compacted); c != (engine.Compacted{Trigger: "auto", PreTokens: 985004, PostTokens: 2616}) {
		t.Errorf("boundary: %+v", c)
	}
}

// The context is the last main-thread call's whole input (uncached, cache
// read, cache written) against that model's window; a subagent's calls and
// the result's usage (summed over the turn's calls) do not count.
func TestDecodeContextFill(t *testing.T) {
	d := newDecoder("/w")
	for _, l := range []string{lineCall1, lineSubagent, lineCall2} {
		if _, err := d.decode([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	tc := decodeOne(t, d, lineResult).(engine.TurnCompleted)
	if tc.ContextTokens != 22+13478+44 || tc.ContextWindow != 1000000 {
		t.Errorf("context %d of %d, want %d of 1000000", tc.ContextTokens, tc.ContextWindow, 22+13478+44)
	}
	// The next turn starts counting again.
	tc = decodeOne(t, d, lineLimitResult).(engine.TurnCompleted)
	if tc.ContextTokens != 0 {
		t.Errorf("a turn without calls reports %d context tokens", tc.ContextTokens)
	}
}
