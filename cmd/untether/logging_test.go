package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/untether/untether/voice"
)

func TestLoggerRedactsSecrets(t *testing.T) {
	const tok = "987654:ZZtop-Secret_x"
	// The shape of a real transport error from the HTTP client.
	urlErr := &url.Error{Op: "Post", URL: "https://api.telegram.org/bot" + tok + "/getUpdates", Err: errors.New("connection refused")}
	wrapped := fmt.Errorf("polling: %w", urlErr)
	escaped := "https://x/?t=" + url.QueryEscape(tok)

	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			l, err := newLogger(&b, format, "debug", tok)
			if err != nil {
				t.Fatal(err)
			}
			l.With("base", escaped).WithGroup("g").Error("request failed for "+tok,
				"err", wrapped, "url", urlErr.URL, slog.Group("inner", "e", urlErr), "n", 3)
			out := b.String()
			if strings.Contains(out, tok) || strings.Contains(out, url.QueryEscape(tok)) {
				t.Fatalf("token reached the log:\n%s", out)
			}
			if got := strings.Count(out, "[redacted]"); got != 5 {
				t.Errorf("want 5 redactions (message, base, err, url, inner.e), got %d:\n%s", got, out)
			}
			if !strings.Contains(out, "connection refused") {
				t.Errorf("the rest of the error must survive:\n%s", out)
			}
			if format == "json" {
				var m map[string]any
				if err := json.Unmarshal(b.Bytes(), &m); err != nil {
					t.Fatalf("not JSON: %v\n%s", err, out)
				}
				g := m["g"].(map[string]any)
				if g["n"] != float64(3) {
					t.Errorf("non-string attrs must keep their type: %v", g["n"])
				}
			}
		})
	}
}

func TestLoggerKeepsStructuredValues(t *testing.T) {
	var b bytes.Buffer
	l, err := newLogger(&b, "json", "info", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	l.Info("m", "ids", []int64{1, 2})
	var m struct{ IDs []int64 }
	if err := json.Unmarshal(b.Bytes(), &m); err != nil || len(m.IDs) != 2 {
		t.Errorf("slice attr lost its structure: %s (%v)", b.String(), err)
	}
}

func TestLoggerLevelsAndFormats(t *testing.T) {
	var b bytes.Buffer
	l, err := newLogger(&b, "JSON", "warn")
	if err != nil {
		t.Fatal(err)
	}
	l.Info("hidden")
	l.Warn("shown")
	if strings.Contains(b.String(), "hidden") || !strings.Contains(b.String(), `"msg":"shown"`) {
		t.Errorf("level filtering or format wrong: %s", b.String())
	}
	for _, c := range []struct{ format, level, want string }{
		{"xml", "info", `log format "xml"`},
		{"text", "verbose", `log level "verbose"`},
	} {
		if _, err := newLogger(&b, c.format, c.level); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("newLogger(%q, %q) error %v, want %q", c.format, c.level, err, c.want)
		}
	}
}

func TestSecretNeverPrinted(t *testing.T) {
	cfg, _, err := load(t, map[string]string{"claude.env": `{ ANTHROPIC_AUTH_TOKEN = "sk-env-secret-value", FOO = "visible" }`})
	if err != nil {
		t.Fatal(err)
	}
	tok := cfg.Telegram.BotToken
	var outputs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3s"} {
		outputs = append(outputs, fmt.Sprintf(verb, tok), fmt.Sprintf(verb, cfg), fmt.Sprintf(verb, *cfg))
	}
	outputs = append(outputs, fmt.Sprint(tok), fmt.Sprintln(cfg.Telegram), tok.String(), tok.GoString())
	j, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, string(j))
	for _, format := range []string{"text", "json"} {
		var b strings.Builder
		// No secrets given to the logger: the type alone must protect it.
		l, err := newLogger(&b, format, "debug")
		if err != nil {
			t.Fatal(err)
		}
		l.Info("cfg", "token", tok, "telegram", cfg.Telegram, "cfg", cfg)
		outputs = append(outputs, b.String())
	}
	red := cfg.Redacted()
	outputs = append(outputs, red)
	for _, out := range outputs {
		if strings.Contains(out, tok.Reveal()) || strings.Contains(out, "AAH-secret") {
			t.Errorf("token printed: %s", out)
		}
	}
	if !strings.Contains(fmt.Sprint(tok), "[redacted]") {
		t.Errorf("Sprint(token) = %q", fmt.Sprint(tok))
	}
	if fmt.Sprint(Secret("")) != "" {
		t.Errorf("empty secret should print empty")
	}
	if strings.Contains(red, "sk-env-secret-value") || !strings.Contains(red, "visible") {
		t.Errorf("Redacted must hide credential-like env values and keep others:\n%s", red)
	}
	var back map[string]any
	if _, err := toml.Decode(red, &back); err != nil {
		t.Errorf("Redacted output is not TOML: %v\n%s", err, red)
	}
	if got := cfg.Secrets(); !slices.Equal(got, []string{testToken, "sk-env-secret-value"}) {
		t.Errorf("Secrets() = %q", got)
	}
}

// Logging through slog directly: a Secret attr is masked by LogValue even in
// a plain handler.
func TestSecretLogValue(t *testing.T) {
	var b strings.Builder
	slog.New(slog.NewJSONHandler(&b, nil)).Info("x", "tok", Secret(testToken))
	if strings.Contains(b.String(), testToken) || !strings.Contains(b.String(), `"tok":"[redacted]"`) {
		t.Errorf("got %s", b.String())
	}
}

// What the bot hands the runner keeps its token from Claude and redacts
// every configured secret from what Claude's events show.
func TestRunnerOptionsKeepSecretsFromClaude(t *testing.T) {
	t.Setenv("UNTETHER_BOT_TOKEN", testToken)
	t.Setenv("SOME_COPY", testToken)
	t.Setenv("HARMLESS", "1")
	cfg, _, err := load(t, map[string]string{"claude.env": `{ API_KEY = "sk-env-secret-value", PLAIN = "x" }`,
		"claude.env_allow": `["HARMLESS", "SOME_COPY"]`})
	if err != nil {
		t.Fatal(err)
	}
	opts := runnerOptions(cfg, nil)
	env := strings.Join(opts.ChildEnv(), "\n")
	if strings.Contains(env, testToken) || !strings.Contains(env, "HARMLESS=1") || !strings.Contains(env, "API_KEY=sk-env-secret-value") {
		t.Errorf("child environment:\n%s", env)
	}
	if got := opts.Redact("a " + testToken + " b sk-env-secret-value"); got != "a [redacted] b [redacted]" {
		t.Errorf("Redact = %q", got)
	}
}

// The transcription API's key is the bot's secret: redacted from chats and
// logs, and kept from Claude, its tools and MCP servers.
func TestVoiceKeyIsASecret(t *testing.T) {
	t.Setenv("UNTETHER_TEST_VOICE_KEY", "gsk-voice-secret-0123456789")
	p := writeFile(t, t.TempDir(), "untether.toml", renderConfig(map[string]string{"voice.api_url": `"https://api.groq.com/openai/v1"`,
		"voice.model": `"whisper-large-v3"`, "voice.api_key_env": `"UNTETHER_TEST_VOICE_KEY"`}))
	cfg, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	opts := runnerOptions(cfg, nil)
	opts.Env = append(os.Environ(), "COPY=gsk-voice-secret-0123456789")
	if env := strings.Join(opts.ChildEnv(), "\n"); strings.Contains(env, "gsk-voice-secret") {
		t.Errorf("Claude's environment holds the key:\n%s", env)
	}
	if got := opts.Redact("key gsk-voice-secret-0123456789"); got != "key [redacted]" {
		t.Errorf("Redact = %q", got)
	}
	if !slices.Contains(botConfig(cfg).Secrets, "gsk-voice-secret-0123456789") {
		t.Error("the bot does not redact the key")
	}
	v := voiceConfig(cfg)
	if api, ok := v.Transcriber.(*voice.API); !ok || api.Key != "gsk-voice-secret-0123456789" || api.Model != "whisper-large-v3" ||
		v.MaxDuration != 10*time.Minute || v.MaxSize != 20<<20 {
		t.Errorf("voice %+v %+v", v, v.Transcriber)
	}
}

func TestShortSecretsAreNamed(t *testing.T) {
	cfg, _, err := load(t, map[string]string{"claude.env": `{ DB_PASSWORD = "hunter2", LONG_TOKEN = "long-enough-value", PLAIN = "x" }`})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.shortSecrets(); !slices.Equal(got, []string{"[claude.env] DB_PASSWORD"}) {
		t.Errorf("shortSecrets() = %q", got)
	}
}
