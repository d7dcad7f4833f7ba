package main

import (
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/telegram/tgtest"
)

var (
	footerCost = regexp.MustCompile(`\$([0-9]+\.[0-9]+) · `)
	chatSpent  = regexp.MustCompile(`Spent in this chat: \$([0-9]+\.[0-9]+)`)
	daySpent   = regexp.MustCompile(`Spent today \(all chats\): \$([0-9]+\.[0-9]+)`)
)

// dollarsIn reads the amount re captures in text.
func dollarsIn(t *testing.T, re *regexp.Regexp, text string) float64 {
	t.Helper()
	m := re.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no %s in %q", re, text)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// costRun is what the chat showed for three turns, the third after a bot
// restart (so in a new Claude process resuming the session).
type costRun struct {
	footers          []float64
	status           string
	chat, day        float64
	stored, recorded float64 // the session's stored total and the chat's cost, from the state file
}

// threeTurnsAcrossRestart runs the turns (answers contain want[i]) and
// reads the footers, /status and the state file.
func threeTurnsAcrossRestart(t *testing.T, e *e2eEnv, want []string) costRun {
	t.Helper()
	var run costRun
	p := e.start(t)
	for i, prompt := range []string{"first", "second", "third"} {
		if i == 2 {
			stop(t, p)
			p = e.start(t)
		}
		id := e.tg.SendMessage(e.user, e.chat, prompt)
		final := e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool {
			return m.ReplyTo == id && answerHas(m, want[i])
		})
		run.footers = append(run.footers, dollarsIn(t, footerCost, final.Text))
	}
	id := e.tg.SendMessage(e.user, e.chat, "/status")
	run.status = e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool {
		return m.ReplyTo == id && answerHas(m, "Status")
	}).Text
	run.chat, run.day = dollarsIn(t, chatSpent, run.status), dollarsIn(t, daySpent, run.status)
	stop(t, p)

	st, err := prefs.Open(t.Context(), filepath.Join(e.dir, "untether.db"), prefs.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	key := fmt.Sprint(e.chat.ID)
	rec, ok, err := st.Session(key)
	if err != nil || !ok {
		t.Fatalf("no session stored: %v", err)
	}
	run.stored = rec.Totals[rec.SessionID]
	run.recorded, _ = st.Cost(key)
	t.Logf("footers %v, /status: chat $%v, today $%v; stored session total %v, chat cost %v",
		run.footers, run.chat, run.day, run.stored, run.recorded)
	return run
}

// check asserts that each footer is about one turn's cost (never the
// running total) and that /status adds them up.
func (run costRun) check(t *testing.T, perTurn func(float64) bool) {
	t.Helper()
	sum := 0.0
	for i, f := range run.footers {
		if !perTurn(f) {
			t.Errorf("turn %d footer shows $%v, not one turn's cost (footers %v)", i+1, f, run.footers)
		}
		sum += f
	}
	// Footers and /status are rounded to $0.0001.
	if math.Abs(run.chat-sum) > 0.0003 || math.Abs(run.day-sum) > 0.0003 {
		t.Errorf("/status shows chat $%v and today $%v, want the footers' sum $%v:\n%s", run.chat, run.day, sum, run.status)
	}
	// The chat's turns added up telescope to the session's last total.
	if math.Abs(run.recorded-run.stored) > 1e-9 {
		t.Errorf("chat cost %v, want the session's last total %v", run.recorded, run.stored)
	}
}

// The fake CLI reports its session's running total ($0.01, $0.02, $0.03,
// continuing after --resume): each footer shows $0.01 and /status $0.03.
func TestRestartFootersShowTurnCost(t *testing.T) {
	e := newE2E(t, testExecutable(t), fakeClaudeEnv("echo"), "")
	run := threeTurnsAcrossRestart(t, e, []string{"echo: first", "echo: second", "echo: third"})
	run.check(t, func(f float64) bool { return f == claudetest.FakeTurnCost })
	if run.chat != 0.03 || run.stored != 0.03 {
		t.Errorf("chat total $%v, stored session total %v; want 0.03", run.chat, run.stored)
	}
}

// The same with the real CLI: three alike turns cost about the same each.
func TestContractBotCostFooters(t *testing.T) {
	e, _ := realClaude(t, claudetest.Say("one"), claudetest.Say("two"), claudetest.Say("three"))
	run := threeTurnsAcrossRestart(t, e, []string{"one", "two", "three"})
	first := run.footers[0]
	run.check(t, func(f float64) bool { return f > 0 && math.Abs(f-first) <= 0.1*first })
}

// [claude] max_turn_usd below one model call's cost: the real CLI runs the
// call, then stops the turn, and the chat says so. The next turn gets a new
// process, so it reaches the model again instead of being refused at once
// (the CLI counts the limit per process, TestContractMaxBudget).
func TestContractBotTurnLimit(t *testing.T) {
	bin := claudetest.Binary(t)
	api := claudetest.NewAPI(t, claudetest.Say("one"), claudetest.Say("two"))
	env, _ := claudetest.Env(t, api.URL())
	e := newE2EOn(t, tgtest.New(t), bin, env, "use_api_billing = true\nmax_turn_usd = 0.03\n", "")
	p := e.start(t)
	for i, prompt := range []string{"first", "second"} {
		id := e.tg.SendMessage(e.user, e.chat, prompt)
		m := e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool {
			return m.ReplyTo == id && answerHas(m, "Turn stopped: spending limit reached")
		})
		t.Logf("turn %d: %q", i+1, m.Text)
		if !answerHas(m, "max_turn_usd ($0.03)") || dollarsIn(t, footerCost, m.Text) <= 0.03 {
			t.Errorf("stop message = %q", m.Text)
		}
		if n := len(api.Requests()); n != i+1 {
			t.Errorf("after turn %d the model was called %d times, want %d", i+1, n, i+1)
		}
	}
	stop(t, p)
}
