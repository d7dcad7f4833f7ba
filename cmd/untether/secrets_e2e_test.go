package main

import (
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/telegram/tgtest"
)

// The real CLI, started by the real bot with the token in the bot's
// environment (as $UNTETHER_BOT_TOKEN and copied under another name), runs
// `env` through its Bash tool: what goes back to the model must not carry
// the token. Then the model (as if it had found the token somewhere else)
// writes it into its answer: the chat shows it redacted.
func TestContractBotTokenNeverReachesClaude(t *testing.T) {
	bin := claudetest.Binary(t)
	tg := tgtest.New(t)
	tok := tg.Token()
	api := claudetest.NewAPI(t,
		claudetest.Answer(claudetest.ToolUse("Bash", map[string]any{"command": "env", "description": "Show the environment"})),
		claudetest.Say("Found it: "+tok+" and escaped "+strings.ReplaceAll(tok, ":", "%3A")),
	)
	env, _ := claudetest.Env(t, api.URL())
	env = append(env, "UNTETHER_BOT_TOKEN="+tok, "COPY_OF_THE_TOKEN="+tok, "HARMLESS_SETTING=kept")
	e := newE2EOn(t, tg, bin, env, "use_api_billing = true\n", "")
	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "Show me your environment.")
	prompt := e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool {
		return answerHas(m, "env") && hasButton(m, "Approve")
	})
	e.tg.PressButton(e.user, e.chat, prompt.ID, buttonData(t, prompt, "Approve"))
	final := e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "Found it") })

	var out string
	for _, req := range api.Requests() {
		for _, tr := range req.ToolResults() {
			out += tr.Content
		}
	}
	if !strings.Contains(out, "HARMLESS_SETTING=kept") {
		t.Fatalf("the env tool did not run or its output did not reach the model: %q", out)
	}
	if strings.Contains(out, tok) || strings.Contains(out, "UNTETHER_BOT_TOKEN") || strings.Contains(out, "COPY_OF_THE_TOKEN") {
		t.Errorf("the token reached Claude's tools:\n%s", out)
	}
	if strings.Contains(final.Text, tok) || strings.Contains(final.Text, "%3A") || strings.Count(final.Text, "[redacted]") != 2 {
		t.Errorf("final answer = %q, want the token redacted in both spellings", final.Text)
	}
	for _, m := range e.tg.Messages(e.chat.ID) {
		if answerHas(m, tok) {
			t.Errorf("the token reached the chat: %q", m.Text)
		}
	}
}

// With env_allow the real CLI still runs a turn and a tool (so the
// essential variables are enough), and a variable not listed does not
// reach its tools.
func TestContractBotEnvAllow(t *testing.T) {
	bin := claudetest.Binary(t)
	api := claudetest.NewAPI(t,
		claudetest.Answer(claudetest.ToolUse("Bash", map[string]any{"command": "env", "description": "Show the environment"})),
		claudetest.Say("Listed."),
	)
	env, _ := claudetest.Env(t, api.URL())
	env = append(env, "NOT_LISTED=hidden", "LISTED_ONE=shown")
	// claudetest.Env's switches (fake API, no telemetry) are listed like an
	// owner would list a gateway; the API key passes with use_api_billing.
	claude := "use_api_billing = true\nenv_allow = [\"ANTHROPIC_BASE_URL\", \"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC\", " +
		"\"DISABLE_AUTOUPDATER\", \"DISABLE_TELEMETRY\", \"DISABLE_ERROR_REPORTING\", \"LISTED_ONE\"]\n"
	e := newE2EOn(t, tgtest.New(t), bin, env, claude, "")
	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "Show me your environment.")
	prompt := e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool {
		return answerHas(m, "env") && hasButton(m, "Approve")
	})
	e.tg.PressButton(e.user, e.chat, prompt.ID, buttonData(t, prompt, "Approve"))
	e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "Listed.") })
	var out string
	for _, req := range api.Requests() {
		for _, tr := range req.ToolResults() {
			out += tr.Content
		}
	}
	if !strings.Contains(out, "LISTED_ONE=shown") || strings.Contains(out, "NOT_LISTED") {
		t.Errorf("tool environment:\n%s", out)
	}
}
