package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/untether/untether/redact"
)

// redactedText replaces every secret the bot knows about wherever it would
// otherwise be printed.
const redactedText = redact.Placeholder

// Secret holds a credential (the bot token). Every way of printing it — fmt
// verbs, slog, JSON/TOML/text marshalling — yields "[redacted]" (or "" when
// it is empty, so an unset secret is still visible as unset); Reveal is the
// one explicit way to get the value.
type Secret string

// Reveal returns the secret value. Call it only where the value is handed to
// the thing that needs it (the Telegram client), never to build messages.
func (s Secret) Reveal() string { return string(s) }

func (s Secret) masked() string {
	if s == "" {
		return ""
	}
	return redactedText
}

// String implements fmt.Stringer.
func (s Secret) String() string { return s.masked() }

// GoString implements fmt.GoStringer (%#v).
func (s Secret) GoString() string { return fmt.Sprintf("%q", s.masked()) }

// Format implements fmt.Formatter so that no verb (%d, %x, %q, a bad verb)
// can fall through to the underlying string.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		io.WriteString(f, s.GoString())
		return
	}
	if verb == 'q' {
		fmt.Fprintf(f, "%q", s.masked())
		return
	}
	io.WriteString(f, s.masked())
}

// MarshalText implements encoding.TextMarshaler (JSON, TOML, slog handlers).
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.masked()), nil }

// LogValue implements slog.LogValuer.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.masked()) }

// newLogger builds the process logger: format "text" or "json", level
// "debug", "info", "warn" or "error" (case-insensitive). Every secret given is
// removed from messages and attribute values before they are written.
func newLogger(w io.Writer, format, level string, secrets ...string) (*slog.Logger, error) {
	var lvl slog.Level
	switch strings.ToLower(level) {
	case "debug":
		lvl = slog.LevelDebug
	case "info":
		lvl = slog.LevelInfo
	case "warn":
		lvl = slog.LevelWarn
	case "error":
		lvl = slog.LevelError
	default:
		return nil, fmt.Errorf("log level %q is not one of debug, info, warn, error", level)
	}
	opts := &slog.HandlerOptions{Level: lvl}
	var h slog.Handler
	switch strings.ToLower(format) {
	case "text":
		h = slog.NewTextHandler(w, opts)
	case "json":
		h = slog.NewJSONHandler(w, opts)
	default:
		return nil, fmt.Errorf("log format %q is not one of text, json", format)
	}
	if len(redact.Forms(secrets...)) == 0 {
		return slog.New(h), nil
	}
	return slog.New(&redactingHandler{next: h, r: redact.New(secrets...)}), nil
}

// redactingHandler scrubs secrets from records before the wrapped handler
// sees them. Errors are the main risk: an *url.Error from the HTTP client
// quotes the full Bot API URL, token included.
type redactingHandler struct {
	next slog.Handler
	r    *redact.Redactor
}

func (h *redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *redactingHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.scrub(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		clean[i] = h.attr(a)
	}
	return &redactingHandler{next: h.next.WithAttrs(clean), r: h.r}
}

func (h *redactingHandler) WithGroup(name string) slog.Handler {
	return &redactingHandler{next: h.next.WithGroup(name), r: h.r}
}

func (h *redactingHandler) scrub(s string) string { return h.r.String(s) }

func (h *redactingHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.scrub(v.String()))
	case slog.KindGroup:
		group := v.Group()
		clean := make([]slog.Attr, len(group))
		for i, g := range group {
			clean[i] = h.attr(g)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(clean...)}
	case slog.KindAny:
		// Handlers print errors via Error() and other values via fmt or
		// json; render the way fmt would and only replace the value when
		// that rendering actually contained a secret, so ordinary values
		// keep their structure in JSON output.
		var text string
		if err, ok := v.Any().(error); ok {
			text = err.Error()
		} else {
			text = fmt.Sprintf("%+v", v.Any())
		}
		if clean := h.scrub(text); clean != text {
			return slog.String(a.Key, clean)
		}
		return slog.Attr{Key: a.Key, Value: v}
	default:
		return slog.Attr{Key: a.Key, Value: v}
	}
}

// Secrets lists the values the logger must never print: the bot's own
// secrets (BotSecrets) and [claude] env values whose names look like
// credentials.
func (c *Config) Secrets() []string {
	out := c.BotSecrets()
	for k, v := range c.Claude.Env {
		if v != "" && secretEnvName(k) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// BotSecrets are the secrets the bot holds for itself, which no program it
// starts gets under any name (runner.Options.StripValues, the ssh
// client's environment) and the redactor knows: the bot token, the voice
// API keys (transcription and speech), each trigger's secret. A new secret of the bot's goes here.
func (c *Config) BotSecrets() []string {
	var out []string
	if c.Telegram.BotToken != "" {
		out = append(out, c.Telegram.BotToken.Reveal())
	}
	if c.Voice.APIKey != "" {
		out = append(out, c.Voice.APIKey.Reveal())
	}
	if c.Voice.SpeakKey != "" {
		out = append(out, c.Voice.SpeakKey.Reveal())
	}
	for _, h := range c.Triggers.Hooks {
		if h.Secret != "" {
			out = append(out, h.Secret.Reveal())
		}
	}
	return out
}

// shortSecrets names the secrets too short for the redactor (see
// redact.MinLen): they would be shown wherever they appear.
func (c *Config) shortSecrets() []string {
	var out []string
	if redact.TooShort(c.Telegram.BotToken.Reveal()) {
		out = append(out, "[telegram] bot_token")
	}
	for k, v := range c.Claude.Env {
		if secretEnvName(k) && redact.TooShort(v) {
			out = append(out, "[claude.env] "+k)
		}
	}
	if redact.TooShort(c.Voice.APIKey.Reveal()) {
		out = append(out, "[voice] api_key_env "+c.Voice.APIKeyEnv)
	}
	for _, h := range c.Triggers.Hooks {
		if redact.TooShort(h.Secret.Reveal()) {
			out = append(out, "[triggers."+h.Name+"] secret_env "+h.SecretEnv)
		}
	}
	slices.Sort(out)
	return out
}

func secretEnvName(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "AUTH", "CREDENTIAL"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Redacted renders the configuration as TOML (for `doctor` and debug logs)
// with the bot token and credential-like env values replaced by "[redacted]".
func (c *Config) Redacted() string {
	cp := *c
	cp.Claude.Env = make(map[string]string, len(c.Claude.Env))
	for k, v := range c.Claude.Env {
		if secretEnvName(k) && v != "" {
			v = redactedText
		}
		cp.Claude.Env[k] = v
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", c.Path)
	if err := toml.NewEncoder(&b).Encode(cp); err != nil {
		// Encoding plain values into a builder cannot fail; if it ever
		// does, say so rather than print a partial config.
		return fmt.Sprintf("# %s\n# cannot render config: %v\n", c.Path, err)
	}
	return b.String()
}
