package view

import (
	"strings"
	"testing"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/telegram/render"
)

func TestOutcomeGolden(t *testing.T) {
	p, _, now := submit(t, cliRequest(t, "bash"))
	original := PromptText(p, workDir, now)[0]
	cases := []struct {
		o    Outcome
		line string
	}{
		{Outcome{Kind: approvals.OutcomeApproved, By: "Alice"}, "✅ <b>Approved</b> by Alice"},
		{Outcome{Kind: approvals.OutcomeDenied, By: "Bob <admin>"}, "❌ <b>Denied</b> by Bob &lt;admin&gt;"},
		{Outcome{Kind: approvals.OutcomeDenied, By: "Bob", Question: true}, "❌ <b>Dismissed</b> by Bob"},
		{Outcome{Kind: approvals.OutcomeAlways, By: "Alice"}, "🔓 <b>Always allowed</b> by Alice"},
		{Outcome{Kind: approvals.OutcomeOutline, By: "Alice"}, "📋 <b>Outline requested</b> by Alice"},
		{Outcome{Kind: approvals.OutcomeTimedOut}, "⌛ <b>Timed out</b> — denied"},
		{Outcome{Kind: approvals.OutcomeCancelled, Reason: "/cancel by Alice"}, "✖ <b>Cancelled</b> — /cancel by Alice"},
		{Outcome{Kind: OutcomeExpired}, "⏹ <b>Expired</b> (bot restarted)"},
		{Outcome{Kind: approvals.OutcomeAnswered, By: "Alice", Answers: map[string]string{"Which colour?": "Blue", "Which checks?": "Lint, Unit tests"}},
			"💬 <b>Answered</b> by Alice\n• <i>Which checks?</i> → Lint, Unit tests\n• <i>Which colour?</i> → Blue"},
		{Outcome{Kind: approvals.OutcomeApproved}, "✅ <b>Approved</b>"},
	}
	var all []string
	for _, c := range cases {
		got := OutcomeText(original, c.o)
		checkHTML(t, string(c.o.Kind), got)
		if want := original + "\n\n" + c.line; got != want {
			t.Errorf("%s: got\n%s\nwant line %q", c.o.Kind, got, c.line)
		}
		all = append(all, OutcomeLine(c.o))
	}
	golden(t, "outcome_lines", strings.Join(all, "\n---\n")+"\n")
	golden(t, "outcome_bash_approved", OutcomeText(original, cases[0].o)+"\n")
}

func TestOutcomeCutsLongOriginal(t *testing.T) {
	// A plan part near the limit: the outcome line must still fit, and the
	// result must stay valid HTML.
	parts := render.Parts(strings.Repeat("**bold** and `code` with <tags> & 😀 emoji\n\n", 200), MaxMessage)
	original := parts[0]
	o := Outcome{Kind: approvals.OutcomeApproved, By: strings.Repeat("Alice", 100)}
	got := OutcomeText(original, o)
	checkHTML(t, "cut outcome", got)
	if !strings.HasSuffix(got, OutcomeLine(o)) {
		t.Errorf("outcome line lost: ...%s", got[len(got)-200:])
	}
	if !strings.Contains(got, "…\n\n✅") {
		t.Error("the cut is not marked")
	}
	if got := OutcomeText("", Outcome{Kind: approvals.OutcomeTimedOut}); got != "⌛ <b>Timed out</b> — denied" {
		t.Errorf("empty original: %q", got)
	}
	checkHTML(t, "unknown kind", OutcomeText("x", Outcome{Kind: "weird<kind>", Reason: "because"}))
}

func TestAutoNotice(t *testing.T) {
	got := AutoNotice("plan cooldown", "Plan approval is paused: write the <outline> & wait.")
	checkHTML(t, "auto", got)
	for _, s := range []string{"Answered automatically", "plan cooldown", "write the &lt;outline&gt; &amp; wait."} {
		if !strings.Contains(got, s) {
			t.Errorf("notice lacks %q: %s", s, got)
		}
	}
	checkHTML(t, "auto long", AutoNotice(strings.Repeat("<", 5000), strings.Repeat("&", 50000)))
	if got := AutoNotice("", ""); !strings.Contains(got, "automatic rule") {
		t.Errorf("empty notice: %q", got)
	}
}
