package runner

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/untether/untether/engine"

	"github.com/untether/untether/redact"
)

const testSecret = "7000000001:AAsecret-token-value"

// leaks reports whether s holds a piece of the secret long enough to matter
// (its first or last 8 characters, as a cut would leave them).
func leaks(s string) bool {
	return strings.Contains(s, testSecret[:8]) || strings.Contains(s, testSecret[len(testSecret)-8:])
}

// The runner shortens titles and result excerpts; secrets are removed
// before that, so a secret straddling the cut leaves no piece behind.
func TestDecodeRedactsBeforeCutting(t *testing.T) {
	dec := newDecoder("/w")
	dec.redact = redact.New(testSecret).String
	emit := func(v any) []engine.Event {
		t.Helper()
		raw, _ := json.Marshal(v)
		d, err := dec.decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		return d.events
	}
	// The title is cut at 80 runes: the secret starts at 70.
	command := strings.Repeat("x", 70) + " " + testSecret + " done"
	evs := emit(map[string]any{"type": "assistant", "message": map[string]any{"id": "m1", "content": []any{
		map[string]any{"type": "text", "text": "the token is " + testSecret},
		map[string]any{"type": "tool_use", "id": "tu1", "name": "Bash", "input": map[string]any{"command": command}},
	}}})
	if len(evs) != 2 {
		t.Fatalf("events = %+v", evs)
	}
	if txt := evs[0].(engine.Text).Text; leaks(txt) || !strings.Contains(txt, redact.Placeholder) {
		t.Errorf("text = %q", txt)
	}
	as := evs[1].(engine.ActionStarted)
	if leaks(as.Title) {
		t.Errorf("title keeps a piece of the secret: %q", as.Title)
	}
	if !strings.Contains(string(as.Input), testSecret) {
		t.Errorf("the raw input must stay verbatim: %s", as.Input)
	}
	// The excerpt is cut at 120 runes: the secret starts at 110.
	evs = emit(map[string]any{"type": "user", "message": map[string]any{"content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "tu1", "content": strings.Repeat("y", 110) + testSecret},
	}}})
	if d := evs[0].(engine.ActionCompleted).Detail; leaks(d) {
		t.Errorf("detail keeps a piece of the secret: %q", d)
	}
	evs = emit(map[string]any{"type": "result", "subtype": "success", "is_error": true, "result": "failed with " + testSecret})
	if tc := evs[0].(engine.TurnCompleted); leaks(tc.Result) || leaks(tc.ErrorText) {
		t.Errorf("result = %+v", tc)
	}
}

// The stderr tail is the end of a longer output: it starts at a line
// boundary, so a secret cut by its start leaves no piece, and it is
// redacted.
func TestStderrTailRedacted(t *testing.T) {
	tl := tail{n: 64}
	_, _ = tl.Write([]byte(strings.Repeat("z", 40) + testSecret + "\nnext line with " + testSecret + "\nlast\n"))
	got := redact.New(testSecret).String(tl.String())
	if leaks(got) || !strings.HasSuffix(got, "last\n") {
		t.Errorf("tail = %q", got)
	}
}

// childEnvironment runs the fake CLI that reports its whole environment.
func childEnvironment(t *testing.T, mut func(*Options)) map[string]string {
	t.Helper()
	s := startFake(t, "environ", mut)
	if err := s.Send(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range strings.Split(next[engine.TurnCompleted](t, s).Result, "\n") {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return env
}

// The bot's token never reaches Claude (nor any tool or MCP server, which
// inherit Claude's environment): not under its own name, not copied under
// another, not inside a longer value; other variables pass.
func TestSecretsStrippedFromEnvironment(t *testing.T) {
	const tok = "7000000001:AAsecret-token-value"
	env := childEnvironment(t, func(o *Options) {
		o.Env = []string{"PATH=/usr/bin", "HOME=/home/me", "UNTETHER_BOT_TOKEN=" + tok, "MY_COPY=" + tok,
			"TG_URL=https://api.telegram.org/bot" + tok + "/getMe", "KEEP=1", "SHORT=ab"}
		o.ExtraEnv = append(o.ExtraEnv, "ALSO_COPY="+tok)
		o.StripEnv = []string{"UNTETHER_BOT_TOKEN"}
		o.StripValues = []string{tok, "ab"} // too short to strip by
	})
	for k, v := range env {
		if strings.Contains(v, tok) || k == "UNTETHER_BOT_TOKEN" {
			t.Errorf("%s=%s reached the child", k, v)
		}
	}
	if env["KEEP"] != "1" || env["PATH"] != "/usr/bin" || env["SHORT"] != "ab" {
		t.Errorf("ordinary variables must pass: %v", env)
	}
}

// With EnvAllow only the listed names, what the CLI needs and ExtraEnv pass.
func TestEnvAllow(t *testing.T) {
	env := childEnvironment(t, func(o *Options) {
		o.Env = []string{"PATH=/usr/bin", "HOME=/home/me", "LANG=C.UTF-8", "CLAUDE_CONFIG_DIR=/c",
			"ANTHROPIC_API_KEY=k", "AWS_SECRET_ACCESS_KEY=aws", "GH_TOKEN=gh", "LISTED=yes"}
		o.ExtraEnv = append(o.ExtraEnv, "FROM_CONFIG=1")
		o.EnvAllow = []string{"LISTED"}
		o.UseAPIBilling = true
	})
	for _, k := range []string{"PATH", "HOME", "LANG", "CLAUDE_CONFIG_DIR", "ANTHROPIC_API_KEY", "LISTED", "FROM_CONFIG"} {
		if _, ok := env[k]; !ok {
			t.Errorf("%s missing from %v", k, env)
		}
	}
	for _, k := range []string{"AWS_SECRET_ACCESS_KEY", "GH_TOKEN"} {
		if _, ok := env[k]; ok {
			t.Errorf("%s passed though not allowed", k)
		}
	}
	o := Options{Env: []string{"ANTHROPIC_API_KEY=k", "PATH=/bin"}, EnvAllow: []string{"X"}}
	if env := strings.Join(o.ChildEnv(), " "); env != "PATH=/bin" {
		t.Errorf("without API billing the key must not pass even when essential names do: %s", env)
	}
}

// Claude starts with Bun's idle collections off (runtimeEnv: they took a
// third of the CLIs' CPU in a burst), and the owner can turn them back
// on: their value, from the bot's environment or from [claude] env, wins.
func TestCLIStartsWithoutIdleCollections(t *testing.T) {
	if env := childEnvironment(t, func(*Options) {}); env["BUN_GC_TIMER_DISABLE"] != "1" {
		t.Errorf("BUN_GC_TIMER_DISABLE=%q, want 1", env["BUN_GC_TIMER_DISABLE"])
	}
	for name, mut := range map[string]func(*Options){
		"bot's environment": func(o *Options) { o.Env = append(os.Environ(), "BUN_GC_TIMER_DISABLE=0") },
		"[claude] env":      func(o *Options) { o.ExtraEnv = append(o.ExtraEnv, "BUN_GC_TIMER_DISABLE=0") },
	} {
		if env := childEnvironment(t, mut); env["BUN_GC_TIMER_DISABLE"] != "0" {
			t.Errorf("the owner's value in the %s: BUN_GC_TIMER_DISABLE=%q, want 0", name, env["BUN_GC_TIMER_DISABLE"])
		}
	}
}
