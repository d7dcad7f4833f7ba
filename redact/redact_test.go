package redact

import (
	"encoding/json"
	"html"
	"net/url"
	"slices"
	"strings"
	"testing"
)

const tok = "123456:ABC-def_ghi"

func TestString(t *testing.T) {
	r := New(tok)
	cases := []struct{ in, want string }{
		{`Post "https://api.telegram.org/bot123456:ABC-def_ghi/getUpdates": dial tcp: refused`,
			`Post "https://api.telegram.org/bot[redacted]/getUpdates": dial tcp: refused`},
		{"https://x/file/bot123456%3AABC-def_ghi/photo.jpg", "https://x/file/bot[redacted]/photo.jpg"},
		{"https://x/?token=123456%3aABC-def_ghi&a=1", "https://x/?token=[redacted]&a=1"},
		{"twice 123456:ABC-def_ghi 123456:ABC-def_ghi", "twice [redacted] [redacted]"},
		{"no secret here 123456", "no secret here 123456"},
		{"", ""},
	}
	for _, c := range cases {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Every spelling the package promises, for a secret that has characters
// each encoding changes.
func TestEverySpelling(t *testing.T) {
	const sec = `k3y<&>"' /?=+x`
	r := New(sec)
	jsonGo, _ := json.Marshal(sec)
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(sec)
	for name, form := range map[string]string{
		"plain":       sec,
		"path":        url.PathEscape(sec),
		"query":       url.QueryEscape(sec),
		"query lower": strings.ToLower(url.QueryEscape(sec)),
		"json":        string(jsonGo),
		"json plain":  strings.TrimSpace(b.String()),
		"html":        html.EscapeString(sec),
		"render":      strings.NewReplacer("&#34;", "&quot;", "&#39;", "'").Replace(html.EscapeString(sec)),
	} {
		in := "before " + form + " after"
		got := r.String(in)
		if got == in || strings.Contains(got, "k3y") || strings.Contains(got, "+x") {
			t.Errorf("%s: %q became %q", name, in, got)
		}
	}
}

func TestShortAndEmptySecretsIgnored(t *testing.T) {
	r := New("", "b", "1234567")
	if got := r.String("a b 1234567"); got != "a b 1234567" {
		t.Errorf("short secrets must be left alone: %q", got)
	}
	if !TooShort("1234567") || TooShort("12345678") || TooShort("") {
		t.Error("TooShort is wrong about the boundary")
	}
	var nilR *Redactor
	if nilR.String("x") != "x" || string(nilR.JSON(json.RawMessage(`{}`))) != "{}" {
		t.Error("a nil Redactor must redact nothing")
	}
}

// Overlapping secrets are removed together: no part of either survives.
func TestOverlapsRemovedWhole(t *testing.T) {
	r := New("key=abcdefgh", "abcdefgh")
	if got := r.String("x key=abcdefgh y"); got != "x [redacted] y" {
		t.Errorf("contained secret: %q", got)
	}
	r = New("12345678XY", "XYZZZZZZZZ")
	if got := r.String("<12345678XYZZZZZZZZ>"); got != "<[redacted]>" {
		t.Errorf("overlapping secrets: %q", got)
	}
}

func TestJSONKeepsOrderAndValidity(t *testing.T) {
	r := New(tok)
	in := json.RawMessage(`{"command":"curl -H 'X: 123456:ABC-def_ghi' https://x","description":"a"}`)
	got := r.JSON(in)
	if string(got) != `{"command":"curl -H 'X: [redacted]' https://x","description":"a"}` {
		t.Errorf("JSON = %s", got)
	}
	// A plain match may start inside an escape sequence ("\n" then
	// "nabcdefg"): replacing it as text would break the JSON, so the value
	// is redacted string by string instead.
	r = New("nabcdefg")
	got = r.JSON(json.RawMessage(`{"z":"x\nabcdefg","a":"nabcdefg"}`))
	var m map[string]string
	if err := json.Unmarshal(got, &m); err != nil || m["z"] != "x\nabcdefg" || m["a"] != Placeholder {
		t.Errorf("escape-straddling match: %s (%v)", got, err)
	}
	if same := New(tok).JSON(json.RawMessage(`{"a":1}`)); string(same) != `{"a":1}` {
		t.Errorf("untouched JSON changed: %s", same)
	}
}

// Text that is still being written never shows the start of a secret: the
// next delta could complete it.
func TestSettledHoldsBackTheStartOfASecret(t *testing.T) {
	r := New("sk-ant-0123456789")
	for _, c := range []struct{ in, want string }{
		{"the key is sk-ant-01", "the key is "},
		{"the key is s", "the key is "},
		{"the key is sk-ant-0123456789 and", "the key is [redacted] and"},
		{"the key is sk-ant-0123456789", "the key is [redacted]"},
		{"task done", "task done"},
		{"a &lt; b sk-ant-0", "a &lt; b "},
	} {
		if got := r.Settled(c.in); got != c.want {
			t.Errorf("Settled(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	var none *Redactor
	if got := none.Settled("sk-ant-01"); got != "sk-ant-01" {
		t.Errorf("nil Redactor: %q", got)
	}
}

// Env drops every variable whose value holds a secret, under any name and
// in any spelling, and keeps the rest in order; short secrets are ignored.
func TestEnv(t *testing.T) {
	r := New(tok, "short")
	env := []string{"A=1", "BOT=" + tok, "URL=https://x/bot" + url.PathEscape(tok) + "/y", "Q=t=" + url.QueryEscape(tok),
		"B=keep short", "NOVALUE", "C=" + tok[:len(tok)-1]}
	got := r.Env(env)
	want := []string{"A=1", "B=keep short", "NOVALUE", "C=" + tok[:len(tok)-1]}
	if !slices.Equal(got, want) {
		t.Errorf("Env = %q, want %q", got, want)
	}
	if got := (*Redactor)(nil).Env(env); !slices.Equal(got, env) {
		t.Errorf("a nil Redactor changed env: %q", got)
	}
}
