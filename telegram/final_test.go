package telegram_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram/tgtest"
)

// longAnswer is prose with code and bold, about 7,000 characters of text
// whose HTML is a quarter longer: two messages by Telegram's count, three
// by HTML length.
func longAnswer() string {
	var b strings.Builder
	for i := 0; b.Len() < 7000; i++ {
		fmt.Fprintf(&b, "Step %d: the function `parseConfig` in **config.go** reads the file & returns an error when a key is unknown.\n\n", i)
	}
	return b.String()
}

// lastStep is the start of the answer's last line as Telegram shows it.
func lastStep(answer string) string {
	return fmt.Sprintf("Step %d: the function", strings.Count(answer, "Step ")-1)
}

func answerScript(answer string) enginetest.Script {
	return func(t *enginetest.Turn) {
		t.Start("fake-model")
		t.Complete(answer)
	}
}

// answerParts returns the bot's messages that hold parts of the answer.
func answerParts(h *harness, chatID int64) []tgtest.Message {
	var parts []tgtest.Message
	for _, m := range h.tg.Messages(chatID) {
		if strings.Contains(m.Text, "Step ") {
			parts = append(parts, m)
		}
	}
	return parts
}

// checkAnswerComplete asserts every step of the answer arrived, in order,
// with its formatting.
func checkAnswerComplete(t *testing.T, parts []tgtest.Message, answer string) {
	t.Helper()
	var text strings.Builder
	codes := 0
	for _, m := range parts {
		text.WriteString(m.Text)
		for _, e := range m.Entities {
			if e.Type == "code" {
				codes++
			}
		}
	}
	steps := strings.Count(answer, "Step ")
	for i := range steps {
		if !strings.Contains(text.String(), fmt.Sprintf("Step %d: the function parseConfig", i)) {
			t.Fatalf("step %d missing from the delivered answer", i)
		}
	}
	if codes != steps {
		t.Errorf("%d code entities delivered, want %d (formatting lost)", codes, steps)
	}
}

func TestLongAnswerFillsMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		answer := longAnswer()
		h := newHarness(t, answerScript(answer))
		h.say("explain")
		h.awaitText(h.dm.ID, lastStep(answer))
		parts := answerParts(h, h.dm.ID)
		if len(parts) != 2 {
			t.Fatalf("answer of %d characters sent in %d messages, want 2", len(answer), len(parts))
		}
		for i, m := range parts {
			if n := tgtest.UTF16Len(m.Text); n > tgtest.MaxTextLen {
				t.Errorf("part %d: %d characters", i, n)
			}
		}
		if tgtest.UTF16Len(parts[0].Source) <= tgtest.MaxTextLen {
			t.Errorf("first part has %d characters of HTML: expected the markup to go past 4096", tgtest.UTF16Len(parts[0].Source))
		}
		checkAnswerComplete(t, parts, answer)
	})
}

// TestAnswerRefusedAsTooLongIsCutSmaller: should Telegram count markup
// after all (ENTITIES_TOO_LONG), the part is sent again cut by HTML length.
func TestAnswerRefusedAsTooLongIsCutSmaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		answer := longAnswer()
		h := newHarness(t, answerScript(answer))
		stop := h.tg.FailWhen(func(c tgtest.Call) bool {
			return c.Method == "sendMessage" && tgtest.UTF16Len(c.Params["text"]) > tgtest.MaxTextLen
		}, tgtest.Failure{Code: 400, Description: "Bad Request: ENTITIES_TOO_LONG"})
		defer stop()
		h.say("explain")
		h.awaitText(h.dm.ID, lastStep(answer))
		parts := answerParts(h, h.dm.ID)
		if len(parts) < 3 {
			t.Fatalf("%d parts delivered, want the refused ones cut smaller", len(parts))
		}
		for i, m := range parts {
			if n := tgtest.UTF16Len(m.Source); n > tgtest.MaxTextLen {
				t.Errorf("part %d: %d characters of HTML accepted despite the fault", i, n)
			}
		}
		checkAnswerComplete(t, parts, answer)
	})
}
