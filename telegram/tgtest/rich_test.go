package tgtest

import (
	"strings"
	"testing"
	"testing/synctest"
)

func TestSendRichMessageChecks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		grp := Supergroup(-1001, "Team")
		s := New(t, InMemory(), WithChats(PrivateChat(alice), grp))
		rich := func(html string) answer {
			return callJSON(t, s, "sendRichMessage", map[string]any{"chat_id": alice.ID, "rich_message": map[string]any{"html": html}})
		}
		mustOK(t, rich(`<h2>Plan &amp; steps</h2><table bordered><tr><th>a</th><th align="right">b</th></tr>`+
			`<tr><td><code>x</code></td><td><b>1</b></td></tr></table><ul><li>one</li><li><p>two</p></li></ul>`+
			`<details><summary>go · 40 lines</summary><pre><code class="language-go">x := 1</code></pre></details><hr>`))
		m := s.Messages(alice.ID)[0]
		if m.ParseMode != "rich" || !strings.Contains(m.Text, "Plan & steps\na | b |") || !strings.Contains(m.Source, "<table bordered>") {
			t.Errorf("stored %q (%s): %q", m.Text, m.ParseMode, m.Source)
		}
		for html, desc := range map[string]string{
			"<p>open":                   `can't find end tag corresponding to start tag "p"`,
			"<script>x</script>":        `unsupported tag "script"`,
			`<p onclick="x">a</p>`:      `unsupported attribute "onclick" of tag "p"`,
			"<b><p>a</p></b>":           `block "p" can't be inside "b"`,
			"<li>a</li>":                `tag "li" can't be inside ""`,
			"<table><td>a</td></table>": `tag "td" can't be inside "table"`,
			"<pre><p>a</p></pre>":       `block "p" can't be inside "pre"`,
			"<p>" + strings.Repeat("é", RichMaxChars+1) + "</p>":                                                   "the text is longer than 32768 characters",
			strings.Repeat("<p>a</p>", RichMaxBlocks+1):                                                            "more than 500 blocks",
			"<table><tr>" + strings.Repeat("<td>c</td>", RichMaxColumns+1) + "</tr></table>":                       "a table has more than 20 columns",
			strings.Repeat("<blockquote>", RichMaxDepth+1) + "a" + strings.Repeat("</blockquote>", RichMaxDepth+1): "more than 16 levels of nested formatting and blocks",
		} {
			wantError(t, rich(html), 400, "Bad Request: can't parse rich message: "+desc)
		}
		wantError(t, callJSON(t, s, "sendRichMessage", map[string]any{"chat_id": alice.ID,
			"rich_message": map[string]any{"html": "<p>a</p>", "markdown": "a"}}), 400,
			"Bad Request: exactly one of html and markdown must be used in the rich message")
		// Right at the limits is fine.
		mustOK(t, rich("<p>"+strings.Repeat("é", RichMaxChars)+"</p>"))
		mustOK(t, rich(strings.Repeat("<p>a</p>", RichMaxBlocks)))

		draft := func(chat int64) answer {
			return callJSON(t, s, "sendRichMessageDraft", map[string]any{"chat_id": chat, "draft_id": 3,
				"rich_message": map[string]any{"html": "<h1>Draft</h1>"}})
		}
		mustOK(t, draft(alice.ID))
		wantError(t, draft(grp.ID), 400, "Bad Request: TEXTDRAFT_PEER_INVALID")
		if d := s.Drafts(alice.ID); len(d) != 1 || !d[0].Rich || d[0].Text != "Draft" {
			t.Errorf("drafts %+v", d)
		}

		s.RefuseRich() // a server older than Bot API 10.1
		wantError(t, rich("<p>a</p>"), 404, "Not Found")
		wantError(t, draft(alice.ID), 404, "Not Found")
	})
}
