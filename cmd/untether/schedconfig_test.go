package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

const scheduleTOML = `[telegram]
bot_token = "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghi"
allowed_user_ids = [123456789]
allowed_chat_ids = [-100200300]

[schedule]
timezone = "Europe/Berlin"

[[schedules]]
chat = 123456789            # a chat id (a forum topic: "123456789:42")
cron = "0 9 * * 1-5"        # or every = "6h"
prompt = "Summarise last night's CI failures"

[[schedules]]
chat = "-100200300:42"
every = "1d"
prompt = "Check the dependencies"

[triggers]
listen = "127.0.0.1:8787"   # off when empty

[triggers.ci]
chat = 123456789
secret_env = "CI_HOOK_SECRET"   # HMAC-SHA256 of the body, header X-Hub-Signature-256: sha256=<hex>
prompt = "CI reported this; find the cause:\n{{body}}"
`

func ciEnv(k string) string {
	if k == "CI_HOOK_SECRET" {
		return "  a-long-enough-ci-secret \n"
	}
	return ""
}

// The entries load as written, with the time zone in [schedule].
func TestSchedulesConfigLoads(t *testing.T) {
	p := writeFile(t, t.TempDir(), "untether.toml", scheduleTOML)
	cfg, err := loadConfig(p, ciEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Schedule.Location.String() != "Europe/Berlin" {
		t.Errorf("zone = %v", cfg.Schedule.Location)
	}
	bs := botSchedules(cfg)
	if len(bs.Entries) != 2 {
		t.Fatalf("entries = %+v", bs.Entries)
	}
	if e := bs.Entries[0]; e.ChatID != 123456789 || e.Rule.Cron != "0 9 * * 1-5" || !strings.HasPrefix(e.ID, "c:") {
		t.Errorf("first entry = %+v", e)
	}
	if e := bs.Entries[1]; e.ChatID != -100200300 || e.Thread != 42 || e.Rule.Every != 24*time.Hour {
		t.Errorf("second entry = %+v", e)
	}
	if bs.Entries[0].ID == bs.Entries[1].ID || botSchedules(cfg).Entries[0].ID != bs.Entries[0].ID {
		t.Error("entry ids are not stable and distinct")
	}
	if h := cfg.Triggers.Hooks; len(h) != 1 || h[0].Name != "ci" || h[0].Secret.Reveal() != "a-long-enough-ci-secret" ||
		h[0].Prompt != "CI reported this; find the cause:\n{{body}}" || cfg.Triggers.Listen != "127.0.0.1:8787" {
		t.Errorf("triggers = %+v", cfg.Triggers)
	}
	if !contains(cfg.Secrets(), "a-long-enough-ci-secret") || !contains(stripEnv(cfg), "CI_HOOK_SECRET") {
		t.Error("the trigger's secret is not redacted, or reaches Claude's environment")
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestSchedulesConfigErrors(t *testing.T) {
	cases := []struct{ name, from, to, want string }{
		{"zone", `timezone = "Europe/Berlin"`, `timezone = "Mars/Olympus"`, `[schedule] timezone: "Mars/Olympus" is not a time zone`},
		{"cron", `cron = "0 9 * * 1-5"`, `cron = "0 9 * *"`, "[[schedules]] entry 1: not a duration or a cron expression"},
		{"both", `cron = "0 9 * * 1-5"`, "cron = \"0 9 * * 1-5\"\nevery = \"1h\"", "both cron and every are set"},
		{"often", `every = "1d"`, `every = "10s"`, "[[schedules]] entry 2: repeats more often than every 1m0s"},
		{"no prompt", `prompt = "Check the dependencies"`, `prompt = " "`, "[[schedules]] entry 2 prompt: is empty"},
		{"chat not allowed", `chat = "-100200300:42"`, `chat = -100999`, "-100999 is a group that is not in [telegram] allowed_chat_ids"},
		{"user not allowed", "chat = 123456789            #", "chat = 5 #", "5 is a private chat whose user is not in"},
		{"bad topic", `chat = "-100200300:42"`, `chat = "-100200300:x"`, "is not a chat id"},
		{"no chat", "chat = 123456789            #", "#", "chat: is not set"},
		{"listen", `listen = "127.0.0.1:8787"`, `listen = "8787"`, `[triggers] listen: "8787" is not host:port`},
		{"unknown key", `secret_env = "CI_HOOK_SECRET"`, "secret_env = \"CI_HOOK_SECRET\"\nsecret = \"x\"", "[triggers.ci.secret]: unknown key"},
		{"no secret env", `secret_env = "CI_HOOK_SECRET"`, `secret_env = "NOT_SET"`, "$NOT_SET is empty or not set"},
		{"name", "[triggers.ci]", "[triggers.CI]", "[triggers.CI]: a trigger's name is its URL"},
		{"unknown entry key", `every = "1d"`, "every = \"1d\"\nwhen = 3", "unknown keys in"},
	}
	for _, c := range cases {
		doc := strings.Replace(scheduleTOML, c.from, c.to, 1)
		if doc == scheduleTOML {
			t.Fatalf("%s: %q not in the config", c.name, c.from)
		}
		p := writeFile(t, t.TempDir(), "untether.toml", doc)
		_, err := loadConfig(p, ciEnv)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// [schedules] timezone, as the issue first spelled it, clashes in TOML
// with the [[schedules]] entries; the error says what to write instead.
func TestSchedulesTableClashHint(t *testing.T) {
	doc := strings.Replace(scheduleTOML, "[schedule]\n", "[schedules]\n", 1)
	p := writeFile(t, t.TempDir(), "untether.toml", doc)
	_, err := loadConfig(p, ciEnv)
	if err == nil || !strings.Contains(err.Error(), "go in [schedule] (singular)") {
		t.Errorf("error = %v, want the hint", err)
	}
}

// Two triggers with one secret: a body signed for one would run the other.
// The error names both triggers (and their variables), never the secret.
func TestTriggersSharedSecretRefused(t *testing.T) {
	second := "\n[triggers.deploy]\nchat = 123456789\nsecret_env = \"%s\"\nprompt = \"Deploy said:\\n{{body}}\"\n"
	for _, env := range []string{"CI_HOOK_SECRET", "DEPLOY_HOOK_SECRET"} {
		p := writeFile(t, t.TempDir(), "untether.toml", scheduleTOML+fmt.Sprintf(second, env))
		_, err := loadConfig(p, func(k string) string {
			if k == "DEPLOY_HOOK_SECRET" {
				return "a-long-enough-ci-secret"
			}
			return ciEnv(k)
		})
		if err == nil || !strings.Contains(err.Error(), "[triggers.ci]") || !strings.Contains(err.Error(), "[triggers.deploy]") ||
			!strings.Contains(err.Error(), "same secret") || strings.Contains(err.Error(), "a-long-enough-ci-secret") {
			t.Errorf("%s: error %v, want one naming both triggers, without the secret", env, err)
		}
	}
}
