package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/untether/untether/schedule"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/triggers"
)

// Scheduled and triggered runs in the config (docs/schedules.md):
//
//	[schedule]
//	timezone = "Europe/Berlin"
//
//	[[schedules]]
//	chat = 123456789
//	cron = "0 9 * * 1-5"
//	prompt = "…"
//
//	[triggers]
//	listen = "127.0.0.1:8787"
//	[triggers.ci]
//	chat = 123456789
//	secret_env = "CI_HOOK_SECRET"
//	prompt = "…{{body}}"
//
// The time zone is in [schedule] (singular): TOML cannot make "schedules"
// both the array of tables the entries are and a table with a timezone key.

// ScheduleSettings is [schedule]: what holds for every schedule.
type ScheduleSettings struct {
	Timezone string `toml:"timezone"`
	// Location is Timezone loaded; nil (the machine's zone) when empty.
	Location *time.Location `toml:"-"`
}

// ScheduleEntryConfig is one [[schedules]] entry.
type ScheduleEntryConfig struct {
	Chat   ChatRef `toml:"chat"`
	Cron   string  `toml:"cron"`
	Every  string  `toml:"every"`
	Prompt string  `toml:"prompt"`
}

// ChatRef is a chat id (123456789) or a forum topic ("123456789:42").
type ChatRef struct {
	ID     int64
	Thread int
	raw    any
}

// UnmarshalTOML takes an integer or a "chat:topic" string; what it means
// is checked in checkSchedules, with the key's name.
func (c *ChatRef) UnmarshalTOML(v any) error {
	c.raw = v
	switch v := v.(type) {
	case int64:
		c.ID = v
	case string:
		chat, topic, hasTopic := strings.Cut(strings.TrimSpace(v), ":")
		id, err := strconv.ParseInt(chat, 10, 64)
		if err != nil {
			return nil // reported by check
		}
		c.ID = id
		if hasTopic {
			if c.Thread, err = strconv.Atoi(topic); err != nil || c.Thread <= 0 {
				c.ID, c.Thread = 0, 0
			}
		}
	}
	return nil
}

// TriggersConfig is [triggers]: listen, and a [triggers.NAME] table per
// trigger. It decodes itself (a fixed key beside named tables), so it
// notes unknown keys for checkSchedules to refuse.
type TriggersConfig struct {
	Listen  string
	Hooks   []TriggerConfig // by name
	unknown []string
}

// TriggerConfig is one [triggers.NAME].
type TriggerConfig struct {
	Name      string
	Chat      ChatRef
	SecretEnv string
	Prompt    string
	Secret    Secret // the value of $SecretEnv
}

func (t *TriggersConfig) UnmarshalTOML(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("[triggers] must be a table")
	}
	for k, v := range m {
		if k == "listen" {
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("[triggers] listen must be a string such as \"127.0.0.1:8787\"")
			}
			t.Listen = s
			continue
		}
		tab, ok := v.(map[string]any)
		if !ok {
			t.unknown = append(t.unknown, "triggers."+k)
			continue
		}
		h := TriggerConfig{Name: k}
		for hk, hv := range tab {
			switch hk {
			case "chat":
				_ = h.Chat.UnmarshalTOML(hv)
			case "secret_env":
				h.SecretEnv, _ = hv.(string)
			case "prompt":
				h.Prompt, _ = hv.(string)
			default:
				t.unknown = append(t.unknown, "triggers."+k+"."+hk)
			}
		}
		t.Hooks = append(t.Hooks, h)
	}
	slices.SortFunc(t.Hooks, func(a, b TriggerConfig) int { return strings.Compare(a.Name, b.Name) })
	slices.Sort(t.unknown)
	return nil
}

// triggerName is what a trigger may be called: a path segment of its URL.
var triggerName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// checkSchedules checks [schedule], [[schedules]] and [triggers], loads the
// time zone and reads the triggers' secrets from getenv.
func (c *Config) checkSchedules(getenv func(string) string) []error {
	var errs []error
	bad := func(where, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s (in %s)", where, fmt.Sprintf(format, args...), c.Path))
	}
	if tz := c.Schedule.Timezone; tz != "" {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			bad("[schedule] timezone", "%q is not a time zone name such as \"Europe/Berlin\" or \"UTC\"", tz)
		} else {
			c.Schedule.Location = loc
		}
	}
	for i, s := range c.Schedules {
		where := fmt.Sprintf("[[schedules]] entry %d", i+1)
		if err := c.checkChat(s.Chat); err != "" {
			bad(where+" chat", "%s", err)
		}
		if _, err := scheduleRule(s); err != nil {
			bad(where, "%v; write cron = \"0 9 * * 1-5\" or every = \"6h\"", err)
		}
		if strings.TrimSpace(s.Prompt) == "" {
			bad(where+" prompt", "is empty: say what Claude should do")
		}
	}
	t := &c.Triggers
	for _, k := range t.unknown {
		bad("["+k+"]", "unknown key; a trigger has chat, secret_env and prompt")
	}
	if t.Listen != "" {
		if _, _, err := net.SplitHostPort(t.Listen); err != nil {
			bad("[triggers] listen", "%q is not host:port, e.g. \"127.0.0.1:8787\"", t.Listen)
		}
	}
	for i := range t.Hooks {
		h := &t.Hooks[i]
		where := "[triggers." + h.Name + "]"
		if !triggerName.MatchString(h.Name) {
			bad(where, "a trigger's name is its URL (/hooks/NAME): lower-case letters, digits, - and _")
		}
		if err := c.checkChat(h.Chat); err != "" {
			bad(where+" chat", "%s", err)
		}
		if strings.TrimSpace(h.Prompt) == "" {
			bad(where+" prompt", "is empty: e.g. \"CI reported this; find the cause:\\n{{body}}\"")
		}
		switch {
		case h.SecretEnv == "":
			bad(where+" secret_env", "is not set: name the environment variable that holds the trigger's HMAC secret")
		case strings.TrimSpace(getenv(h.SecretEnv)) == "":
			bad(where+" secret_env", "$%s is empty or not set: the trigger would accept no request", h.SecretEnv)
		default:
			h.Secret = Secret(strings.TrimSpace(getenv(h.SecretEnv)))
		}
		// A body signed for one would be valid for the other.
		for _, o := range t.Hooks[:i] {
			if h.Secret == "" || o.Secret != h.Secret {
				continue
			}
			from := "$" + h.SecretEnv
			if o.SecretEnv != h.SecretEnv {
				from = "in $" + o.SecretEnv + " and " + from
			}
			bad("[triggers."+o.Name+"] and "+where, "both use the same secret, %s: a request signed for one would run "+
				"the other too; give each trigger its own secret", from)
		}
	}
	return errs
}

// checkChat says what is wrong with a configured chat ("" when nothing):
// a run the owner sets up needs a chat the allowlist admits by itself.
func (c *Config) checkChat(ch ChatRef) string {
	switch {
	case ch.raw == nil:
		return "is not set: a chat id such as 123456789, or \"123456789:42\" for a forum topic"
	case ch.ID == 0:
		return fmt.Sprintf("%v is not a chat id such as 123456789, or \"123456789:42\" for a forum topic", ch.raw)
	case ch.ID > 0 && !c.Telegram.AllowAnyUser && !slices.Contains(c.Telegram.AllowedUserIDs, ch.ID):
		return fmt.Sprintf("%d is a private chat whose user is not in [telegram] allowed_user_ids", ch.ID)
	case ch.ID < 0 && !slices.Contains(c.Telegram.AllowedChatIDs, ch.ID):
		return fmt.Sprintf("%d is a group that is not in [telegram] allowed_chat_ids", ch.ID)
	}
	return ""
}

// scheduleRule reads an entry's cron or every (exactly one).
func scheduleRule(s ScheduleEntryConfig) (schedule.Rule, error) {
	switch {
	case s.Cron != "" && s.Every != "":
		return schedule.Rule{}, fmt.Errorf("both cron and every are set")
	case s.Cron != "":
		r := schedule.Rule{Cron: strings.Join(strings.Fields(s.Cron), " ")}
		if err := r.Check(); err != nil {
			return r, err
		}
		if r.First(time.Now(), time.UTC).IsZero() {
			return r, &schedule.Error{Kind: schedule.ErrNever, Input: s.Cron}
		}
		return r, nil
	case s.Every != "":
		d, ok := schedule.ParseDuration(strings.ToLower(strings.TrimSpace(s.Every)))
		if !ok {
			return schedule.Rule{}, &schedule.Error{Kind: schedule.ErrBadSpec, Input: s.Every}
		}
		r := schedule.Rule{Every: d}
		return r, r.Check()
	}
	return schedule.Rule{}, fmt.Errorf("neither cron nor every is set")
}

// botSchedules is the bot's side of [schedule] and [[schedules]]. An
// entry's id is a hash of what it says, so an unchanged entry keeps its
// due time across restarts and a changed one starts afresh.
func botSchedules(cfg *Config) telegram.Schedules {
	out := telegram.Schedules{Location: cfg.Schedule.Location}
	for _, s := range cfg.Schedules {
		r, err := scheduleRule(s)
		if err != nil {
			continue // refused when the config was loaded
		}
		sum := sha256.Sum256([]byte(fmt.Sprintf("%d\x00%d\x00%s\x00%d\x00%s", s.Chat.ID, s.Chat.Thread, r.Cron, r.Every, s.Prompt)))
		out.Entries = append(out.Entries, telegram.ScheduleEntry{ID: "c:" + hex.EncodeToString(sum[:8]),
			ChatID: s.Chat.ID, Thread: s.Chat.Thread, Rule: r, Prompt: s.Prompt})
	}
	return out
}

// hookServer is the trigger server, or nil when [triggers] listen is empty.
func hookServer(cfg *Config, log *slog.Logger) (*triggers.Server, error) {
	t := cfg.Triggers
	if t.Listen == "" {
		if len(t.Hooks) > 0 {
			log.Warn("[triggers] has triggers but no listen address: they are off")
		}
		return nil, nil
	}
	if host, _, err := net.SplitHostPort(t.Listen); err == nil {
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			log.Warn("[triggers] listens beyond loopback over plain HTTP: put a TLS proxy in front", "listen", t.Listen)
		}
	}
	hooks := make([]triggers.Hook, 0, len(t.Hooks))
	for _, h := range t.Hooks {
		hooks = append(hooks, triggers.Hook{Name: h.Name, ChatID: h.Chat.ID, Thread: h.Chat.Thread, Prompt: h.Prompt,
			Secret: []byte(h.Secret.Reveal())})
	}
	return triggers.New(triggers.Config{Listen: t.Listen, Hooks: hooks, Log: log})
}

// scheduleSyntaxHint explains TOML's complaint about a [schedules] table
// beside [[schedules]] entries: the settings of all schedules are [schedule].
func scheduleSyntaxHint(msg string) string {
	if !strings.Contains(msg, "'schedules'") {
		return ""
	}
	return `; [[schedules]] are the entries, so settings for all of them go in [schedule] (singular), e.g. [schedule] timezone = "Europe/Berlin"`
}
