package main

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/untether/untether/speak"
)

// The speech API's key is the bot's secret, like the transcription key:
// redacted, kept from Claude and from the programs the bot runs (the
// speech command among them); the backend gets it with the model and the
// default voice, and speak_max becomes characters.
func TestSpeakKeyIsASecret(t *testing.T) {
	t.Setenv("UNTETHER_TEST_SPEAK_KEY", "sk-speak-secret-0123456789")
	cfg, err := loadWithEnv(t, map[string]string{"voice.speak_url": `"https://api.openai.com/v1"`,
		"voice.speak_model": `"gpt-4o-mini-tts"`, "voice.speak_key_env": `"UNTETHER_TEST_SPEAK_KEY"`, "voice.speak_max": `"60s"`})
	if err != nil {
		t.Fatal(err)
	}
	opts := runnerOptions(cfg, nil)
	opts.Env = append(os.Environ(), "COPY=sk-speak-secret-0123456789")
	for name, env := range map[string][]string{"claude": opts.ChildEnv(), "helpers": helperEnv(cfg)} {
		if joined := strings.Join(env, "\n"); strings.Contains(joined, "sk-speak-secret") {
			t.Errorf("%s' environment holds the key", name)
		}
	}
	if !slices.Contains(botConfig(cfg).Secrets, "sk-speak-secret-0123456789") {
		t.Error("the bot does not redact the key")
	}
	s := speakConfig(cfg)
	api, ok := s.Speaker.(*speak.API)
	if !ok || api.Key != "sk-speak-secret-0123456789" || api.Model != "gpt-4o-mini-tts" || api.Voice != "alloy" ||
		api.URL != "https://api.openai.com/v1" || s.MaxChars != 60*speak.CharsPerSecond {
		t.Errorf("speak %+v %+v", s, s.Speaker)
	}
}

// speak_key_env defaults to api_key_env: one OpenAI key for both ways.
func TestSpeakKeyDefaultsToAPIKey(t *testing.T) {
	t.Setenv("UNTETHER_TEST_VOICE_KEY", "sk-both-ways-0123456789")
	cfg, err := loadWithEnv(t, map[string]string{"voice.speak_url": `"https://api.openai.com/v1"`, "voice.speak_model": `"tts-1"`,
		"voice.speak_voice": `"nova"`, "voice.api_key_env": `"UNTETHER_TEST_VOICE_KEY"`})
	if err != nil {
		t.Fatal(err)
	}
	if api, ok := speakConfig(cfg).Speaker.(*speak.API); !ok || api.Key != "sk-both-ways-0123456789" || api.Voice != "nova" {
		t.Errorf("speaker %+v", speakConfig(cfg).Speaker)
	}
	if !slices.Contains(stripEnv(cfg), "UNTETHER_TEST_VOICE_KEY") {
		t.Errorf("stripEnv %q lacks the key's variable", stripEnv(cfg))
	}
}

// speak_command runs with the helpers' environment (no secrets); no
// speak_* key: no voice replies.
func TestSpeakCommandConfig(t *testing.T) {
	cfg, _, err := load(t, map[string]string{"voice.speak_command": `["sh", "-c", "espeak-ng --stdout | opusenc - -"]`})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := speakConfig(cfg).Speaker.(*speak.Command)
	if !ok || len(c.Args) != 3 || c.Env == nil || slices.ContainsFunc(c.Env, func(kv string) bool { return strings.Contains(kv, testToken) }) {
		t.Errorf("speaker %+v", speakConfig(cfg).Speaker)
	}
	if cfg, _, _ = load(t, nil); speakConfig(cfg).Speaker != nil {
		t.Error("a speaker without speak_url or speak_command")
	}
}

// loadWithEnv loads a config in this process's environment.
func loadWithEnv(t *testing.T, overrides map[string]string) (*Config, error) {
	t.Helper()
	return LoadConfig(writeFile(t, t.TempDir(), "untether.toml", renderConfig(overrides)))
}
