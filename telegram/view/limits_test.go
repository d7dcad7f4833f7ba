package view

import (
	"strings"
	"testing"
	"time"
)

func TestLimitTexts(t *testing.T) {
	now := time.Date(2026, 11, 24, 11, 50, 0, 0, time.Local)
	reached := Limit{Status: LimitRejected, Name: "five_hour", ResetsAt: now.Add(2*time.Hour + 10*time.Minute), Now: now}
	for _, c := range []struct {
		l    Limit
		want string
	}{
		{reached, "⛔ Usage limit reached (5-hour limit) — resets at 14:00 (in 2 h 10 min)"},
		{Limit{Status: LimitWarning, Name: "seven_day", Used: 0.8, ResetsAt: now.Add(3*24*time.Hour + 20*time.Hour), Now: now},
			"⚠️ 80% of your weekly limit used — resets Sat 07:50 (in 3 days 20 h)"},
		{Limit{Status: LimitWarning, Name: "brand_new"}, "⚠️ Nearing your usage limit"},
		{Limit{Status: LimitRejected, Name: "five_hour", ResetsAt: now.Add(-time.Minute), Now: now},
			"⛔ Usage limit reached (5-hour limit) — should have reset by now"},
		{Limit{Status: LimitAllowed}, "✓ Within your usage limits"},
	} {
		if got := LimitLine(c.l); got != c.want {
			t.Errorf("LimitLine(%+v) =\n %q, want\n %q", c.l, got, c.want)
		}
	}
	hasAll(t, "notice", UsageLimitNotice(reached), "<b>⛔ Usage limit reached (5-hour limit) — resets at 14:00 (in 2 h 10 min)</b>", "send your message again")
	hasAll(t, "warning notice", UsageWarningNotice(Limit{Status: LimitWarning, Name: "seven_day", Used: 0.9}), "90% of your weekly limit used", "until the limit is reached")
	hasAll(t, "overage notice", UsageWarningNotice(Limit{Status: LimitRejected, Name: "five_hour"}), "Usage limit reached (5-hour limit)", "extra usage")
}

func TestProgressNotes(t *testing.T) {
	now := time.Date(2026, 11, 24, 11, 50, 0, 0, time.Local)
	p := Progress{State: StateWorking, Elapsed: 5 * time.Minute,
		Actions:    []Action{{ID: "1", Kind: "command", Title: "git push <origin>", State: Running}},
		Limit:      &Limit{Status: LimitRejected, Name: "five_hour", ResetsAt: now.Add(time.Hour), Now: now},
		Retry:      &Retry{Attempt: 2, Max: 10, Delay: 3300 * time.Millisecond, HTTPStatus: 429, Error: "rate_limit"},
		Compaction: &Compaction{Auto: true, Pre: 985004, Post: 2616},
		Stall:      &Stall{Kind: "command", Title: "git push <origin>", For: 5 * time.Minute},
	}
	hasAll(t, "progress", ProgressText(p),
		"⛔ Usage limit reached (5-hour limit) — resets at 12:50 (in 1 h)",
		"🔁 The API is rate limited: Claude retries (2 of 10) in 4 seconds",
		"🗜 Context compacted (it was nearly full): 985k → 2.6k tokens",
		"⚠️ 💻 git push &lt;origin&gt; — no news for 5 minutes, and no CPU use")
	p = Progress{State: StateWorking, Compaction: &Compaction{Running: true}, Stall: &Stall{Kind: "command", Title: "go build", For: 4 * time.Minute, Busy: true},
		Retry: &Retry{Attempt: 1, Max: 10, Delay: time.Second, HTTPStatus: 529, Error: "overloaded"}}
	hasAll(t, "progress", ProgressText(p), "🗜 Compacting the conversation…", "💻 go build — running for 4 minutes, busy", "The API is overloaded")
	if got := compactionLine(Compaction{}); got != "🗜 Context compacted" {
		t.Errorf("compaction without figures: %q", got)
	}
	if got := retryLine(Retry{Attempt: 1, Delay: time.Second, HTTPStatus: 500}); !strings.Contains(got, "error 500") {
		t.Errorf("retry on a 500: %q", got)
	}
}

func TestFooterContext(t *testing.T) {
	for _, c := range []struct {
		used, window int
		want         string
	}{
		{699_999, 1_000_000, ""}, {700_000, 1_000_000, "context 70% full"}, {156_000, 200_000, "context 78% full"},
		{5000, 0, ""}, {210_000, 200_000, "context 105% full"},
	} {
		got := FinalFooter(Footer{OK: true, Duration: time.Second, ContextTokens: c.used, ContextWindow: c.window})
		if c.want == "" && strings.Contains(got, "context") || c.want != "" && !strings.Contains(got, " · "+c.want+"</i>") {
			t.Errorf("%d of %d: footer %q, want %q", c.used, c.window, got, c.want)
		}
	}
}

func TestStallTexts(t *testing.T) {
	s := Stall{Kind: "command", Title: "git push origin main", For: 5*time.Minute + 10*time.Second}
	ask := StallText(s)
	checkHTML(t, "stall", ask)
	if !strings.Contains(ask, "💻 git push origin main has been running for 5 minutes with no news and no CPU use") {
		t.Errorf("stall text:\n%s", ask)
	}
	kb := StallKeyboard("k:x", "c:y")
	if len(kb) != 1 || len(kb[0]) != 2 || kb[0][0].Data != "k:x" || kb[0][1].Data != "c:y" {
		t.Errorf("keyboard %+v", kb)
	}
	for how, want := range map[int]string{StallKept: "⏳ Keeping on waiting (@ada &lt;x&gt;).", StallMovedOn: "✓ Claude went on.", StallTurnOver: "The turn is over."} {
		got := StallSettled(s, how, "@ada <x>")
		checkHTML(t, "settled", got)
		if !strings.Contains(got, want) {
			t.Errorf("settled %d: %q lacks %q", how, got, want)
		}
	}
	if got := StallSettled(Stall{}, StallKept, ""); !strings.Contains(got, "a tool ran for 0 seconds") || strings.Contains(got, "()") {
		t.Errorf("empty stall: %q", got)
	}
}

func TestUsageText(t *testing.T) {
	now := time.Date(2026, 11, 24, 11, 50, 0, 0, time.Local)
	u := Usage{ChatToday: 0.05, ChatMonth: 0.25, AllToday: 0.45, AllMonth: 1.65, DailyBudget: 5,
		Limit: &Limit{Status: LimitRejected, Name: "five_hour", ResetsAt: now.Add(2*time.Hour + 10*time.Minute), Now: now},
		Seen:  now.Add(-12 * time.Minute),
		Procs: []Proc{{Chat: "4242", This: true, Age: 5 * time.Minute, Working: true}, {Chat: "-100:7", Age: 2 * time.Hour}}}
	hasAll(t, "/usage", UsageText(u),
		"This chat: $0.05 today · $0.25 this month",
		"All chats: $0.45 today · $1.65 this month <i>(daily budget $5.00)</i>",
		"Usage limits: ⛔ Usage limit reached (5-hour limit) — resets at 14:00 (in 2 h 10 min) <i>(reported 12 minutes ago)</i>",
		"Claude processes: 2", "• this chat — working, started 5 minutes ago", "• chat <code>-100:7</code> — idle, started 2 hours ago")
	hasAll(t, "empty /usage", UsageText(Usage{}), "This chat: $0.00 today", "no report yet", "Claude processes: none running")
}

// hasAll checks text is good HTML (checkHTML) and reports each of wants
// that it lacks.
func hasAll(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	checkHTML(t, what, text)
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, text)
		}
	}
}
