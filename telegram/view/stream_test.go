package view

import (
	"strings"
	"testing"

	"github.com/untether/untether/telegram/render"
)

// A half-written answer, cut at every byte, renders to HTML Telegram takes:
// open code blocks, lists, emphasis and links are closed or left literal.
func TestStreamDraftOfEveryPrefix(t *testing.T) {
	answer := "The **decoder** in `runner/decode.go` assumed complete lines:\n\n" +
		"1. Buffer the partial line\n2. Decode once complete:\n   - keep **order**\n\n" +
		"```go\nfunc flush(buf []byte) ([]byte, error) {\n\treturn buf, nil\n}\n```\n\n" +
		"> Run `go test ./runner/...` and see [the docs](https://example.com/a_b) — a < b && c > d."
	for i := 1; i <= len(answer); i++ {
		prefix := answer[:i]
		html := StreamDraft(prefix)
		if strings.TrimSpace(render.VisibleText(html)) == "" {
			continue // only markup so far: the draft shows "Thinking…"
		}
		checkHTMLWithin(t, "draft of "+strings.ReplaceAll(prefix, "\n", `\n`), html, render.Message)
		p := StreamParagraph(prefix)
		checkHTMLWithin(t, "paragraph", p, streamTail)
	}
	// The same rendering as the final answer once the text is complete.
	if got, want := StreamDraft(answer), FinalParts(answer, "", render.Message)[0]; !strings.HasPrefix(strings.TrimSpace(want), strings.TrimSpace(got)) {
		t.Errorf("draft differs from the final:\n%s\n---\n%s", got, want)
	}
}

// Past one message, the draft is what Claude is writing now: the last part.
func TestStreamDraftShowsTheFrontier(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 12000; i++ {
		b.WriteString("Paragraph " + strings.Repeat("x", 60) + " number " + string(rune('a'+i%26)) + ".\n\n")
	}
	b.WriteString("The newest sentence.")
	html := StreamDraft(b.String())
	checkHTMLWithin(t, "long draft", html, render.Message)
	if !strings.HasSuffix(html, "The newest sentence.") {
		t.Errorf("draft does not end with what is being written: …%s", html[max(0, len(html)-80):])
	}
	p := StreamParagraph(b.String())
	if !strings.HasSuffix(p, "The newest sentence.") || len(render.VisibleText(p)) > streamTail.Visible {
		t.Errorf("paragraph = %q", p)
	}
	if StreamDraft("") != "" || StreamDraft("   \n") != "" {
		t.Error("no text must give an empty draft (Thinking…)")
	}
}

// The progress message shows the latest paragraph of the answer, rendered,
// in place of the teaser.
func TestProgressShowsStreamingParagraph(t *testing.T) {
	p := Progress{State: StateWorking, LastText: "old teaser", Streaming: "First part.\n\nNow **writing** `code`"}
	got := ProgressText(p)
	checkHTML(t, "progress", got)
	if !strings.Contains(got, "Now <b>writing</b> <code>code</code>") || strings.Contains(got, "old teaser") || strings.Contains(got, "First part") {
		t.Errorf("progress = %s", got)
	}
}
