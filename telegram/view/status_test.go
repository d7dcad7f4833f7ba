package view

import (
	"strings"
	"testing"
)

func TestStatusGolden(t *testing.T) {
	s := Status{SessionID: "3f2a9c1e-7d4b-4e51-9a0c-5b8f6e2d1a77", Model: "opus", ModelSource: "chat setting",
		PermissionMode: "acceptEdits", PlanMode: "auto", PlanModeSource: "config", Verbose: true, VerboseSource: "chat setting",
		Queued: 1, ChatCostUSD: 0.4321, SpentToday: 0.5, DailyBudget: 2, Live: true, Running: true, WorkDir: "/home/user/project"}
	got := StatusText(s)
	checkHTML(t, "status", got)
	for _, line := range []string{"State: working on a turn", "Queued: 1 message", "Model: <b>opus</b> <i>(chat setting)</i>",
		"Plan mode: <b>auto</b> <i>(config)</i>", "Verbose: <b>on</b> <i>(chat setting)</i>", "Spent in this chat: $0.4321",
		"Spent today (all chats): $0.50 of $2.00"} {
		if !strings.Contains(got, line) {
			t.Errorf("status lacks %q:\n%s", line, got)
		}
	}
	golden(t, "status", got+"\n")

	empty := StatusText(Status{})
	checkHTML(t, "empty status", empty)
	for _, line := range []string{"State: idle", "Session: <i>none yet", "Model: <b>default</b>", "Plan mode: <b>off</b>", "Verbose: <b>off</b>"} {
		if !strings.Contains(empty, line) {
			t.Errorf("empty status lacks %q:\n%s", line, empty)
		}
	}
	if strings.Contains(empty, "Queued") || strings.Contains(empty, "Spent") || strings.Contains(empty, "Directory") {
		t.Errorf("empty status shows empty fields:\n%s", empty)
	}
	long := strings.Repeat("<&>", 3000)
	checkHTML(t, "nasty status", StatusText(Status{SessionID: long, Model: long, ModelSource: long, PermissionMode: long, PlanMode: long, WorkDir: long}))
}

// Today's spend shows without a budget too; the budget only adds "of".
func TestStatusSpendWithoutBudget(t *testing.T) {
	got := StatusText(Status{SpentToday: 1.5})
	if !strings.Contains(got, "Spent today (all chats): $1.50\n") && !strings.HasSuffix(got, "Spent today (all chats): $1.50") {
		t.Errorf("status = %s", got)
	}
	if strings.Contains(got, " of ") || strings.Contains(got, "in this chat") {
		t.Errorf("status shows a budget or chat cost it was not given:\n%s", got)
	}
}

func TestHelpGolden(t *testing.T) {
	private := HelpText(false, "untether_bot")
	group := HelpText(true, "@untether_bot")
	checkHTML(t, "help", private)
	checkHTML(t, "group help", group)
	for _, cmd := range []string{"/start", "/help", "/new", "/cancel", "/status", "/planmode on|off|auto|show|clear", "/model &lt;name&gt;|show|clear", "/verbose on|off"} {
		if !strings.Contains(private, cmd) {
			t.Errorf("help lacks %q", cmd)
		}
	}
	if strings.Contains(private, "@untether_bot") {
		t.Error("private help talks about groups")
	}
	if !strings.Contains(group, "Mention @untether_bot, reply to one of its messages") || strings.Contains(group, "@@") {
		t.Errorf("group help does not say how to address the bot:\n%s", group)
	}
	golden(t, "help_private", private+"\n")
	golden(t, "help_group", group+"\n")
	checkHTML(t, "group help, no name", HelpText(true, ""))
}

func TestRefusal(t *testing.T) {
	got := Refusal(123456789)
	checkHTML(t, "refusal", got)
	want := "This bot is private. Your Telegram user id is <code>123456789</code> — ask the owner to add it to allowed_user_ids."
	if got != want {
		t.Errorf("got %q", got)
	}
}

// /status names what runs: untether's build and the Claude Code it found.
func TestStatusVersions(t *testing.T) {
	got := StatusText(Status{Version: "v1.2.0 (abc123def456)", ClaudeVersion: "2.1.330"})
	checkHTML(t, "status with versions", got)
	if !strings.HasSuffix(got, "\nVersions: untether v1.2.0 (abc123def456) · Claude Code 2.1.330") {
		t.Errorf("status = %s", got)
	}
	if got := StatusText(Status{ClaudeVersion: "<2.1>"}); !strings.HasSuffix(got, "\nVersions: Claude Code &lt;2.1&gt;") {
		t.Errorf("only Claude's version: %s", got)
	}
	if got := StatusText(Status{}); strings.Contains(got, "Versions") {
		t.Errorf("no versions, yet a line: %s", got)
	}
}

func TestSetupDone(t *testing.T) {
	got := SetupDone(5150)
	checkHTML(t, "setup done", got)
	for _, want := range []string{"set up", "answers only you", "<code>5150</code>", "untether init"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q: %s", want, got)
		}
	}
}

func TestStatusHeldProcess(t *testing.T) {
	for _, c := range []struct {
		s    Status
		want string
	}{
		{Status{Live: true, Held: true}, "State: idle, Claude process running (held, attached: it survives a restart of the bot)"},
		{Status{Live: true, Running: true, Held: true}, "State: working on a turn (held, attached: it survives a restart of the bot)"},
		{Status{Live: true}, "State: idle, Claude process running\n"},
	} {
		if got := StatusText(c.s); !strings.Contains(got, c.want) {
			t.Errorf("StatusText(%+v) lacks %q:\n%s", c.s, c.want, got)
		}
	}
}
