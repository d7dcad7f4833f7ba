package telegram_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/redact"
	"github.com/untether/untether/transcript"
)

// /export sends the conversation as a Markdown file: each turn's prompt,
// its tools in short, its answer and cost; /export json the raw
// transcript. A secret in a prompt and in an answer is in neither file.
func TestExportTheConversation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript, withSecret)
		h.say("/export")
		h.awaitText(h.dm.ID, "Nothing to export yet")

		h.say("deploy with " + apiSecret + " please") // the echo answers with it too
		h.awaitText(h.dm.ID, "Answer:")
		h.say("second one")
		h.awaitText(h.dm.ID, "Answer: second one")
		synctest.Wait() // the recorder has written both turns

		h.say("/export")
		md := h.awaitDocument(1)
		for _, want := range []string{"## Turn 1", "deploy with " + redact.Placeholder + " please", "command: `ls -la`",
			"**Answer:** deploy with " + redact.Placeholder, "## Turn 2", "second one", "answered · $0.01"} {
			if !strings.Contains(md, want) {
				t.Errorf("the Markdown export lacks %q:\n%s", want, md)
			}
		}

		h.say("/export json")
		raw := h.awaitDocument(2)
		var turns []transcript.Turn
		if err := json.Unmarshal([]byte(raw), &turns); err != nil {
			t.Fatalf("the JSON export does not decode: %v\n%s", err, raw)
		}
		if len(turns) != 2 || turns[0].Prompt != "deploy with "+redact.Placeholder+" please" ||
			!strings.Contains(turns[0].Answer, "deploy with "+redact.Placeholder) || turns[1].Outcome != transcript.Done ||
			len(turns[0].Tools) != 1 || turns[0].Tools[0].Input != "ls -la" || turns[0].CostUSD == 0 {
			t.Errorf("the JSON export = %+v", turns)
		}
		for _, p := range pieces(apiSecret) {
			if strings.Contains(md, p) || strings.Contains(raw, p) {
				t.Errorf("an export carries %q of the secret", p)
			}
		}
		h.assertNoLeak(apiSecret)
	})
}

// awaitDocument waits for the bot's n-th file in the private chat and
// returns its content.
func (h *harness) awaitDocument(n int) string {
	h.t.Helper()
	h.tg.Await(wait, "an export file", func() bool { return len(h.documents(h.dm.ID)) >= n })
	d := h.documents(h.dm.ID)[n-1]
	data, ok := h.tg.FileData(d.Document.FileID)
	if !ok {
		h.t.Fatalf("the file of message %d is not known", d.ID)
	}
	return string(data)
}
