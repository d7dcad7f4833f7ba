package telegram_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// The bot stops while it sends an answer of two messages, after the first
// reached Telegram: the bot started next sends only the second. The state
// file notes each part delivered, so what was sent is never sent again
// (what remains is one message: see docs/durability.md).
func TestHeldAnswerPartsNotSentTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		answer := "PART-ONE " + strings.Repeat("alpha ", 800) + "\n\nPART-TWO " + strings.Repeat("beta ", 300)
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Complete(answer)
		})
		plain := func(c *telegram.Config) { c.PlainAnswers = true }
		h.engine = newHeldEngine(h.eng)
		synctest.Wait()
		h.stop()
		hang := h.tg.FailWhen(func(c tgtest.Call) bool {
			return c.Method == "sendMessage" && strings.Contains(c.Params["text"], "PART-TWO")
		}, tgtest.Failure{Hang: true})
		h.start(plain)
		h.say("go")
		defer func() { // the held session outlives the bot: end it with the test
			h.stop()
			_ = h.eng.session(0).Close(context.Background())
		}()
		h.awaitText(h.dm.ID, "PART-ONE")
		h.tg.AwaitCall(wait, "sendMessage", func(c tgtest.Call) bool { return strings.Contains(c.Params["text"], "PART-TWO") })
		// What a SIGKILL now would leave: the first part noted delivered.
		if held, err := h.store.ListHeld(); err != nil || len(held) != 1 || held[0].Turn == nil ||
			held[0].Turn.Delivered != 1 || held[0].Turn.Answered {
			t.Fatalf("the record while the second part is on its way: %+v %v", held, err)
		}
		h.stop() // the second part on its way
		synctest.Wait()
		hang()
		h.start(plain)
		h.awaitText(h.dm.ID, "PART-TWO")
		synctest.Wait()
		ones, twos := 0, 0
		for _, text := range h.messages(h.dm.ID) {
			ones += strings.Count(text, "PART-ONE")
			twos += strings.Count(text, "PART-TWO")
		}
		if ones != 1 || twos != 1 {
			t.Errorf("part one came %d times, part two %d; want once each", ones, twos)
		}
		if n := len(h.eng.starts()); n != 1 {
			t.Errorf("claude started %d times, want once", n)
		}
		if held, err := h.store.ListHeld(); err != nil || len(held) != 1 || held[0].Turn != nil {
			t.Errorf("after the answer: %+v %v, want the process held between turns", held, err)
		}
	})
}
