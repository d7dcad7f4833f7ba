package telegram_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
	"github.com/untether/untether/telegram/view"
)

// Telegram adds fields and variants with every Bot API release and sends
// them from that day; an update the bot cannot decode must cost that one
// update, never the bot.

// rawMessage is a message update as Telegram would send it, with fields
// (a JSON object's members, without braces) added to its required ones.
func rawMessage(chatID, fromID int64, fields string) string {
	return fmt.Sprintf(`{"message":{"chat":{"id":%d,"type":"private","first_name":"X"},`+
		`"from":{"id":%d,"is_bot":false,"first_name":"X"},%s}}`, chatID, fromID, fields)
}

func TestUndecodableUpdateIsSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		const stranger = 9191
		now := time.Now().Unix()
		// A message no version of the Bot API's types can decode: its id
		// is an object and its date a word.
		bad := rawMessage(h.user.ID, h.user.ID, `"message_id":{"n":1},"date":"yesterday","text":"secret words"`)
		strangers := rawMessage(stranger, stranger, `"message_id":7,"date":"yesterday","text":"stranger words"`)
		cancel := rawMessage(h.user.ID, h.user.ID, fmt.Sprintf(`"message_id":8,"date":%d,"text":"/cancel",`+
			`"entities":[{"type":"bot_command","offset":0,"length":7}]`, now))
		hello := rawMessage(h.user.ID, h.user.ID, fmt.Sprintf(`"message_id":9,"date":%d,"text":"hello"`, now))
		ids := h.tg.AddUpdates(bad, strangers, cancel, hello) // one batch

		// Hold the next getUpdates, so Telegram keeps the batch unconfirmed:
		// the restart below gets it again.
		stopHold := h.tg.FailWhen(func(c tgtest.Call) bool {
			return c.Method == "getUpdates" && c.Int64("offset") > ids[0]
		}, tgtest.Failure{Hang: true})
		h.awaitText(h.dm.ID, "Nothing is running.")
		h.awaitText(h.dm.ID, "Answer: hello")
		h.awaitText(h.dm.ID, view.Unreadable)
		h.tg.AwaitCall(wait, "getUpdates", func(c tgtest.Call) bool { return c.Int64("offset") == ids[3]+1 })
		h.stop()

		if got := h.messages(stranger); len(got) != 0 {
			t.Errorf("the stranger's unreadable message was answered: %q", got)
		}
		for _, id := range []int64{ids[0], ids[1]} {
			lines := h.logs.lines(fmt.Sprintf("update_id=%d ", id))
			if len(lines) != 1 {
				t.Errorf("update %d: %d log lines, want 1: %q", id, len(lines), lines)
				continue
			}
			if !strings.Contains(lines[0], "message") {
				t.Errorf("update %d: the log line does not name its keys: %q", id, lines[0])
			}
		}
		for _, content := range []string{"secret words", "stranger words", "yesterday"} {
			if got := h.logs.lines(content); len(got) != 0 {
				t.Errorf("the log shows an unreadable update's content %q: %q", content, got)
			}
		}

		// A restart that gets the batch again (the offset was lost) answers
		// none of it a second time.
		stopHold()
		if err := h.store.SetOffset(ids[0]); err != nil {
			t.Fatal(err)
		}
		h.start()
		h.settled()
		h.say("still there?")
		h.awaitText(h.dm.ID, "Answer: still there?")
		h.stop()
		count := map[string]int{}
		for _, m := range h.messages(h.dm.ID) {
			count[m]++
		}
		for _, want := range []string{view.Unreadable, "Nothing is running.", "Answer: hello"} {
			n := 0
			for m, c := range count {
				if strings.Contains(m, want) {
					n += c
				}
			}
			if n != 1 {
				t.Errorf("%d messages say %q, want 1 (all: %q)", n, want, h.messages(h.dm.ID))
			}
		}
	})
}

// A forwarded message whose origin is of a kind added after this version
// of the Bot API's types (Telegram adds such variants to its unions with
// every release) is an ordinary message: it runs, and so does the rest of
// its batch.
func TestForwardFromUnknownOriginRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		now := time.Now().Unix()
		forward := rawMessage(h.user.ID, h.user.ID, fmt.Sprintf(`"message_id":20,"date":%d,"text":"look at this",`+
			`"forward_origin":{"type":"future_kind","date":%d}`, now, now))
		hello := rawMessage(h.user.ID, h.user.ID, fmt.Sprintf(`"message_id":21,"date":%d,"text":"and this"`, now))
		h.tg.AddUpdates(forward, hello)
		h.awaitText(h.dm.ID, "Answer: and this")
		h.awaitText(h.dm.ID, "Answer: look at this")
		h.stop()
		for _, m := range h.messages(h.dm.ID) {
			if strings.Contains(m, view.Unreadable) {
				t.Errorf("the forward was refused as unreadable")
			}
		}
	})
}

// In a group the unreadable message is answered only where a readable one
// would be: an allowed group, and a message meant for the bot.
func TestUndecodableInGroups(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const allowed, other = -100111, -100999
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.AllowedChats = []int64{allowed} })
		mention := "@" + h.tg.Bot().Username
		group := func(chat int64, id int, text string) string {
			return fmt.Sprintf(`{"message":{"chat":{"id":%d,"type":"supergroup","title":"G"},`+
				`"from":{"id":%d,"is_bot":false,"first_name":"X"},"message_id":%d,"date":"yesterday","text":%q,`+
				`"entities":[{"type":"mention","offset":0,"length":%d}]}}`, chat, h.user.ID, id, text, len(mention))
		}
		chatter := strings.Replace(group(allowed, 30, "just chatting"), `"type":"mention"`, `"type":"bold"`, 1)
		h.tg.AddUpdates(chatter, group(allowed, 31, mention+" look"), group(other, 32, mention+" look"))
		h.tg.SendMessage(h.user, tgtest.Chat{ID: allowed, Type: "supergroup", Title: "G"}, mention+" hi")
		h.awaitText(allowed, "Answer: hi")
		h.awaitText(allowed, view.Unreadable)
		h.stop()
		n := 0
		for _, m := range h.messages(allowed) {
			if strings.Contains(m, view.Unreadable) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d unreadable notes in the allowed group, want 1 (for the message meant for the bot): %q", n, h.messages(allowed))
		}
		if got := h.messages(other); len(got) != 0 {
			t.Errorf("a group that is not allowed was answered: %q", got)
		}
	})
}
