package web

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/redact"
	"github.com/untether/untether/transcript"
)

const histSecret = "sk-web-history-secret-0123456789"

// withHistory gives the rig the bot's turn log, redacted like the bot's
// messages, holding turns for alice's chat.
func withHistory(t *testing.T, turns ...transcript.Turn) func(*Config, *prefs.Store) {
	return func(c *Config, st *prefs.Store) {
		red := redact.New(testToken, histSecret)
		c.Redactor, c.History = red, transcript.New(st, red)
		for _, x := range turns {
			rec, err := json.Marshal(x)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.AppendTranscript(strconv.FormatInt(alice, 10), rec, prefs.TranscriptLimits{Turns: 10, Bytes: 1 << 20}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

var hostile = transcript.Turn{
	Started: time.Unix(1_799_999_000, 0), Ended: time.Unix(1_799_999_060, 0), Outcome: transcript.Done, CostUSD: 0.25,
	Prompt: `deploy <img src=x onerror=alert(1)> with ` + histSecret,
	Answer: "**Deployed** with `" + histSecret + "`.\n\n<script>alert(2)</script>\n\n[click](javascript:alert(3))\n\n- one\n- two",
	Tools:  []transcript.Tool{{Kind: "command", Input: "make deploy"}},
}

// The chat page shows the conversation so far from the turn log: the
// prompt escaped, the answer's Markdown rendered with no raw HTML and no
// script link, the tools and the footer, and no secret.
func TestChatPageShowsTheConversationSoFar(t *testing.T) {
	r := newRig(t, withHistory(t, hostile))
	c := client(t)
	r.signIn(t, c, alice)
	code, page := body(t)(c.Get(r.ts.URL + "/chat/" + strconv.FormatInt(alice, 10)))
	if code != http.StatusOK {
		t.Fatalf("chat page: %d", code)
	}
	for _, want := range []string{"The conversation so far", "deploy &lt;img src=x onerror=alert(1)&gt; with " + redact.Placeholder,
		"<strong>Deployed</strong> with <code>" + redact.Placeholder + "</code>", "<li>one</li>", "command: <code>make deploy</code>",
		"answered · $0.25 · 1m 00s", `href="/chat/1001/export?format=md"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script>alert", "javascript:", "<img", histSecret} {
		if strings.Contains(page, bad) {
			t.Errorf("the page carries %q", bad)
		}
	}
}

// What the hub saw before the log's last turn ended is that turn (shown
// once, from the log); what it saw after is not logged yet and is shown.
func TestChatPageShowsEachAnswerOnce(t *testing.T) {
	logged := transcript.Turn{Started: time.Unix(1_799_999_000, 0), Ended: time.Unix(1_799_999_100, 0),
		Prompt: "first", Answer: "the first answer", Outcome: transcript.Done}
	r := newRig(t, withHistory(t, logged))
	key := strconv.FormatInt(alice, 10)
	at := func(sec int64, ev chat.Event) {
		r.now = time.Unix(sec, 0)
		ev.Key, ev.Place = key, chat.Place{ChatID: alice}
		r.s.hub.Observe(ev)
	}
	at(1_799_999_001, chat.Event{Kind: chat.EvTurnStarted, Asked: "first"})
	at(1_799_999_090, chat.Event{Kind: chat.EvAnswer, Final: &chat.Final{Result: "the first answer"}})
	at(1_799_999_100, chat.Event{Kind: chat.EvTurnEnded})
	at(1_799_999_200, chat.Event{Kind: chat.EvTurnStarted, Asked: "second"})
	at(1_799_999_210, chat.Event{Kind: chat.EvAnswer, Final: &chat.Final{Result: "the second answer"}})
	c := client(t)
	r.signIn(t, c, alice)
	_, page := body(t)(c.Get(r.ts.URL + "/chat/" + key))
	for _, s := range []string{"the first answer", "the second answer", "<p class=\"text\">second</p>"} {
		if n := strings.Count(page, s); n != 1 {
			t.Errorf("%q is on the page %d times, want once", s, n)
		}
	}
}

// The download is /export's file: the same Markdown and JSON, as an
// attachment, redacted; another user's chat is not found.
func TestConversationDownload(t *testing.T) {
	r := newRig(t, withHistory(t, hostile))
	c := client(t)
	r.signIn(t, c, alice)
	resp, err := c.Get(r.ts.URL + "/chat/1001/export?format=md")
	if err != nil {
		t.Fatal(err)
	}
	code, md := body(t)(resp, nil)
	if cd := resp.Header.Get("Content-Disposition"); code != http.StatusOK || !strings.HasPrefix(cd, `attachment; filename="conversation-`) ||
		!strings.HasSuffix(cd, `.md"`) {
		t.Fatalf("md download: %d %q", code, cd)
	}
	want := transcript.MarkdownOf([]transcript.Turn{hostile})
	want = strings.ReplaceAll(want, histSecret, redact.Placeholder)
	if md != want {
		t.Errorf("the download is not /export's Markdown:\n%s\nwant\n%s", md, want)
	}
	code, raw := body(t)(c.Get(r.ts.URL + "/chat/1001/export?format=json"))
	var turns []transcript.Turn
	if code != http.StatusOK || json.Unmarshal([]byte(raw), &turns) != nil || len(turns) != 1 || turns[0].CostUSD != 0.25 {
		t.Errorf("json download: %d %s", code, raw)
	}
	if strings.Contains(md+raw, histSecret) {
		t.Error("a download carries the secret")
	}
	if code, _ := body(t)(c.Get(r.ts.URL + "/chat/1001/export?format=exe")); code != http.StatusBadRequest {
		t.Errorf("an unknown format: %d, want 400", code)
	}
	other := client(t)
	r.signIn(t, other, bob)
	if code, page := body(t)(other.Get(r.ts.URL + "/chat/1001/export?format=md")); code != http.StatusNotFound || strings.Contains(page, "Deployed") {
		t.Errorf("bob downloading alice's chat: %d", code)
	}
}
