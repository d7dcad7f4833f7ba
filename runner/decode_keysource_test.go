package runner

import (
	"testing"

	"github.com/untether/untether/engine"
)

// The init line says how the CLI pays: the recorded sessions ran on an API
// key; on a claude.ai subscription login the CLI writes "none" (what the
// bot warns about for scheduled runs, docs/schedules.md).
func TestDecodeAPIKeySource(t *testing.T) {
	var got []engine.Billing
	for _, l := range recordedLines(t, "a_plain_text") {
		out, err := newDecoder("/w").decode(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range out.events {
			if s, ok := ev.(engine.SessionStarted); ok {
				got = append(got, s.Billing)
			}
		}
	}
	if len(got) != 1 || got[0] != engine.BillingAPIKey {
		t.Errorf("recorded init (apiKeySource ANTHROPIC_API_KEY): billing %q, want [%s]", got, engine.BillingAPIKey)
	}
	sub := `{"type":"system","subtype":"init","cwd":"/w","session_id":"s1","model":"claude-opus-5-5","permissionMode":"default","apiKeySource":"none","claude_code_version":"2.1.330"}`
	if s, ok := decodeOne(t, newDecoder("/w"), sub).(engine.SessionStarted); !ok || s.Billing != engine.BillingSubscription {
		t.Errorf("subscription init: %+v", s)
	}
}
