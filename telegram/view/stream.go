package view

import (
	"strings"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/telegram/render"
)

// Streaming: Claude's text as it is written, in a draft (private chats) or
// in the progress message. Both go through the Markdown → HTML path of the
// final answer, on text that may stop anywhere: goldmark closes what is
// open (a code block runs to the end of the text, an unclosed ** stays
// literal), so a half-written answer never yields HTML Telegram refuses.

// The stream modes, as the config and /stream name them (the core's).
const (
	StreamOff    = chat.StreamOff
	StreamEdits  = chat.StreamEdits
	StreamDrafts = chat.StreamDrafts
)

// ValidStream reports whether m names a stream mode.
func ValidStream(m string) bool { return chat.ValidStream(m) }

// streamTail bounds the paragraph the progress message shows: enough to
// follow the answer, little enough to leave room for the action lines.
var streamTail = render.Limits{Visible: 600, Source: 1200, Entities: 20}

// StreamDraft renders the text being written for a draft (sendMessageDraft
// with parse_mode HTML). Past one message it is the last part: what Claude
// is writing now. Empty text gives "", which Telegram shows as "Thinking…".
func StreamDraft(md string) string {
	return lastPart(render.Markdown(md), render.Message)
}

// StreamParagraph renders the latest paragraph of the text being written,
// for the progress message (its last 600 characters or so when longer).
func StreamParagraph(md string) string {
	if p := lastPart(render.Markdown(md[lastBlock(md):]), streamTail); p != "" {
		return p
	}
	// The new block has no text yet (a "1." or a fence): the one before.
	return lastPart(render.Markdown(md), streamTail)
}

// lastBlock is where the last Markdown block of md starts: after its last
// blank line outside a code fence, or at the fence of the code block being
// written.
func lastBlock(md string) int {
	start, fence := 0, ""
	blank := false
	for i := 0; i < len(md); {
		j := strings.IndexByte(md[i:], '\n')
		end := len(md)
		if j >= 0 {
			end = i + j
		}
		line := strings.TrimLeft(md[i:end], " ")
		switch {
		case fence != "":
			if strings.HasPrefix(line, fence) && strings.TrimSpace(line[len(fence):]) == "" {
				fence = ""
			}
		case strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~"):
			fence = line[:3]
			start = i
		case strings.TrimSpace(line) == "":
			blank = true
		case blank:
			start, blank = i, false
		}
		if j < 0 {
			break
		}
		i = end + 1
	}
	return start
}

func lastPart(html string, l render.Limits) string {
	parts := render.SplitWithin(html, l)
	if len(parts) == 0 {
		return ""
	}
	return parts[len(parts)-1]
}

// streamBlock is the progress message's paragraph of the answer, set off
// from the action lines.
func streamBlock(md string) string {
	p := StreamParagraph(md)
	if strings.TrimSpace(p) == "" {
		return ""
	}
	return "\n\n" + p
}

// UsageStream answers /stream with an argument it does not take.
const UsageStream = "Usage: /stream off | edits | drafts | show | clear"

// StreamShow answers /stream show; group says drafts cannot be used here.
func StreamShow(mode, source string, group bool) string {
	msg := settingLine("Streaming", mode, source)
	switch {
	case mode == StreamDrafts && group:
		msg += " Drafts exist in private chats only: here the progress message shows the answer as it is written."
	case mode == StreamDrafts:
		msg += " You see the answer as Claude writes it, in a draft under the progress message."
	case mode == StreamEdits:
		msg += " The progress message shows the answer as it is written."
	default:
		msg += " The answer comes when Claude is done."
	}
	return fit(msg)
}

// StreamSet answers /stream off|edits|drafts|clear.
func StreamSet(mode, source string, group bool) string {
	return fit(StreamShow(mode, source, group) + " It applies from your next message.")
}

// StreamRich renders the text being written as a rich draft
// (sendRichMessageDraft) when it is rich (see FinalRich) and fits one rich
// message; false: StreamDraft's plain draft.
func StreamRich(md string) (string, bool) {
	return FinalRich(md, "")
}
