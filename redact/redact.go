// Package redact removes secrets from text before anyone can read it: every
// message the bot sends to a chat and every log line pass through a
// Redactor. It imports nothing of untether, so every layer can use it.
//
// A secret is matched in each spelling it takes when text carries it on:
//
//   - plain;
//   - URL-escaped, as a path segment or a query value (url.PathEscape,
//     url.QueryEscape), with upper- or lower-case hex digits: a bot token sits
//     in the path of every Bot API URL, so transport errors quote it;
//   - JSON-escaped, with and without Go's HTML escaping (<, >, & as \u003c…):
//     tool inputs are JSON;
//   - HTML-escaped, as render.Escape and html.EscapeString write it: the bot
//     sends HTML.
//
// Other encodings (base64, hex, a secret cut in two and rejoined) are not
// matched: any reversible transformation defeats string matching, so a
// redactor can only be a guard against accidents. What keeps a secret from a
// Claude that was told to leak it is that Claude never gets the value (see
// runner's environment filtering).
package redact

import (
	"cmp"
	"encoding/json"
	"html"
	"net/url"
	"slices"
	"strings"
)

// Placeholder replaces every secret.
const Placeholder = "[redacted]"

// MinLen is the shortest secret that is redacted. A shorter value turns up
// by chance in ordinary text ("admin1", a word, a number), so replacing it
// would mangle messages, and a placeholder at each chance hit would tell a
// reader the value. A secret that short is guessable anyway; configuration
// loading warns about it (see TooShort).
const MinLen = 8

// TooShort reports whether s is a secret the Redactor cannot protect.
func TooShort(s string) bool { return s != "" && len(s) < MinLen }

// Redactor replaces a fixed set of secrets. The zero value and nil redact
// nothing; a Redactor is safe for concurrent use.
type Redactor struct {
	forms []string
}

// New returns a Redactor for the given secrets; empty ones and those
// shorter than MinLen are ignored.
func New(secrets ...string) *Redactor {
	return &Redactor{forms: Forms(secrets...)}
}

// String returns s with every spelling of every secret replaced. Where two
// matches overlap (two secrets sharing characters, or one spelling inside
// another) their union is replaced, so no part of either survives.
func (r *Redactor) String(s string) string {
	if r == nil || len(r.forms) == 0 {
		return s
	}
	var spans []span
	for _, f := range r.forms {
		for i := 0; ; {
			j := strings.Index(s[i:], f)
			if j < 0 {
				break
			}
			spans = append(spans, span{i + j, i + j + len(f)})
			i += j + 1
		}
	}
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var b strings.Builder
	b.Grow(len(s))
	done := 0 // s[:done] is written
	for i := 0; i < len(spans); {
		start, end := spans[i].start, spans[i].end
		for i++; i < len(spans) && spans[i].start < end; i++ {
			end = max(end, spans[i].end)
		}
		b.WriteString(s[done:start])
		b.WriteString(Placeholder)
		done = end
	}
	b.WriteString(s[done:])
	return b.String()
}

// Settled is String for text that is still being written (Claude's text as
// it streams): it also leaves out a tail that could be the start of a
// secret, which the next piece of text might complete. What it returns
// never shows part of a secret, however the text goes on.
func (r *Redactor) Settled(s string) string {
	out := r.String(s)
	if r == nil {
		return out
	}
	cut := 0
	for _, f := range r.forms {
		for k := min(len(f)-1, len(out)); k > cut; k-- {
			if strings.HasSuffix(out, f[:k]) {
				cut = k
				break
			}
		}
	}
	return out[:len(out)-cut]
}

// Env returns env (KEY=VALUE entries) without every variable whose value
// holds a secret in any spelling: a secret is kept from a program by its
// value, whatever name a copy of it was put under (an owner's alias of a
// trigger's secret, a URL with the token in it). The one way the bot
// strips its environment for the programs it starts.
func (r *Redactor) Env(env []string) []string {
	if r == nil || len(r.forms) == 0 {
		return env
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		_, value, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(r.forms, func(f string) bool { return strings.Contains(value, f) }) {
			out = append(out, kv)
		}
	}
	return out
}

// span is a match: s[start:end].
type span struct{ start, end int }

// JSON returns raw with the secrets replaced inside its strings, keeping
// the order of object keys (which the approval prompts show). The JSON
// spellings are matched first, so the result stays valid JSON; should an
// odd secret (one with quotes or backslashes) still break it, the value is
// decoded, redacted string by string and encoded again instead.
func (r *Redactor) JSON(raw json.RawMessage) json.RawMessage {
	if r == nil || len(r.forms) == 0 || len(raw) == 0 {
		return raw
	}
	out := r.String(string(raw))
	if out == string(raw) {
		return raw
	}
	if json.Valid([]byte(out)) || !json.Valid(raw) {
		return json.RawMessage(out)
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return json.RawMessage(out)
	}
	b, err := json.Marshal(r.value(v))
	if err != nil {
		return json.RawMessage(out)
	}
	return b
}

func (r *Redactor) value(v any) any {
	switch x := v.(type) {
	case string:
		return r.String(x)
	case []any:
		for i := range x {
			x[i] = r.value(x[i])
		}
	case map[string]any:
		clean := make(map[string]any, len(x))
		for k, e := range x {
			clean[r.String(k)] = r.value(e)
		}
		return clean
	}
	return v
}

// Forms lists the spellings of the secrets that are replaced (longest
// first, without repeats).
func Forms(secrets ...string) []string {
	var forms []string
	for _, sec := range secrets {
		if len(sec) < MinLen {
			continue
		}
		for _, f := range []string{sec, url.PathEscape(sec), url.QueryEscape(sec)} {
			forms = append(forms, f, lowerHexEscapes(f))
		}
		forms = append(forms, jsonForms(sec)...)
		forms = append(forms, html.EscapeString(sec), htmlQuot(sec))
	}
	slices.SortFunc(forms, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return slices.Compact(forms)
}

// jsonForms are the bodies of the JSON string for s, as Go writes it by
// default (HTML characters as \u003c…) and as other encoders do.
func jsonForms(s string) []string {
	var out []string
	for _, escHTML := range []bool{true, false} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(escHTML)
		if enc.Encode(s) != nil {
			continue
		}
		q := strings.TrimSuffix(b.String(), "\n")
		out = append(out, q[1:len(q)-1])
	}
	return out
}

// htmlQuot escapes s the way the bot's renderer does (&quot; for ").
func htmlQuot(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// lowerHexEscapes rewrites %3A as %3a: both are valid escapes and some
// encoders emit lower case.
func lowerHexEscapes(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			for j := i + 1; j <= i+2; j++ {
				if b[j] >= 'A' && b[j] <= 'F' {
					b[j] += 'a' - 'A'
				}
			}
		}
	}
	return string(b)
}
