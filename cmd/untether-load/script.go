package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/toolkinds"
)

// scripted hands every chat a scripted Claude (enginetest) in place of a CLI
// process, so the load measures the bot, not Claude.
type scripted struct {
	script func(chat int) enginetest.Script
	chatOf func(sessionKey string) (int, bool)

	mu     sync.Mutex
	starts int
	// ledger continues a session's running cost when it is resumed, as
	// Claude Code does.
	ledger enginetest.Ledger
}

func (e *scripted) Start(ctx context.Context, spec engine.Spec) (engine.Conn, error) {
	chat, ok := e.chatOf(spec.SessionKey)
	if !ok {
		return nil, fmt.Errorf("load engine: unknown session key %q", spec.SessionKey)
	}
	e.mu.Lock()
	e.starts++
	n := e.starts
	e.mu.Unlock()
	id := spec.Resume
	if id == "" {
		id = fmt.Sprintf("load-session-%d-%d", chat, n)
	}
	return enginetest.New(id, e.script(chat), enginetest.WithLedger(&e.ledger)), nil
}

func (e *scripted) started() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.starts
}

// turnID names one turn of one chat in prompts, answers and records.
type turnID struct{ chat, turn int }

func (id turnID) String() string { return "c" + strconv.Itoa(id.chat) + "-t" + strconv.Itoa(id.turn) }

// promptText is what the simulated user writes; the script reads the turn
// back from it.
func promptText(id turnID) string {
	return "load " + id.String() + ": refactor the decoder and run the tests"
}

func parsePrompt(p string) (turnID, bool) {
	var id turnID
	i := strings.Index(p, "load c")
	if i < 0 {
		return id, false
	}
	_, err := fmt.Sscanf(p[i:], "load c%d-t%d", &id.chat, &id.turn)
	return id, err == nil
}

// turnScript is one scripted turn: a first sentence streamed at once, a
// stream of tool calls at the configured rate, the answer streamed as Claude
// writes it (-stream-rate), and on some turns an approval request at the
// end, after which the turn ends at once. A follow-up (the turn after the
// last) is a quick question with a short answer.
func (d *driver) turnScript(chat int) enginetest.Script {
	return func(t *enginetest.Turn) {
		id, ok := parsePrompt(t.Prompt)
		if !ok || id.chat != chat {
			t.Fail("load: unexpected prompt " + t.Prompt)
			return
		}
		d.rec.stamp(id, func(r *turnRec) { r.claudeFrom = time.Now() })
		t.Start("load-model")
		if !d.stream(t, id, firstText(id), true) {
			t.Aborted()
			return
		}
		followup := id.turn > d.cfg.turns
		answer := d.answer(id)
		if followup {
			answer = shortAnswer(id)
		}
		r := rand.New(rand.NewPCG(d.cfg.seed, uint64(id.chat)<<16|uint64(id.turn)))
		work := time.Duration((0.5 + r.Float64()) * float64(d.cfg.turnTime))
		if followup {
			work = 0
		}
		// Turns vary ±50% around turnTime, so chats drift apart as people's
		// do; the answer streams in the last part of that time.
		tools := work - d.streamTime(answer)
		if !d.tools(t, id, tools) {
			t.Aborted()
			return
		}
		if !d.stream(t, id, answer, false) {
			t.Aborted()
			return
		}
		if !followup && d.asks(id) {
			d.rec.asked(id)
			dec := t.Ask(engine.ApprovalRequest{RequestID: "req-" + id.String(), Kind: engine.RequestCommand, ToolName: "Bash",
				Input:     json.RawMessage(`{"command":"rm -rf ./build && make release","description":"clean rebuild"}`),
				ToolUseID: id.String() + "-ask"})
			if dec.Interrupted || dec.Closed {
				t.Aborted()
				return
			}
		}
		d.rec.result(id)
		t.Complete(answer)
	}
}

// tools emits tool calls and results at the configured rate for work.
func (d *driver) tools(t *enginetest.Turn, id turnID, work time.Duration) bool {
	gap := time.Duration(float64(time.Second) / d.cfg.eventsPerSec)
	end := time.Now().Add(work)
	for n := 0; time.Now().Before(end); n++ {
		tu := fmt.Sprintf("%s-tool%d", id, n)
		t.Emit(engine.ActionStarted{ToolUseID: tu, Tool: "Bash", Kind: toolkinds.Command,
			Title: fmt.Sprintf("go test ./internal/pkg%02d/... -run Test%d", n%40, n)})
		if !sleepOrInterrupt(t, gap) {
			return false
		}
		t.Emit(engine.ActionCompleted{ToolUseID: tu, OK: n%11 != 7, Detail: fmt.Sprintf("ok  pkg%02d  0.%03ds", n%40, n%1000)})
		if n%8 == 0 && n > 0 {
			if !d.stream(t, id, fmt.Sprintf("Step %d of %s looks fine; moving on to the next package.", n, turnMark(id)), false) {
				return false
			}
		}
		if !sleepOrInterrupt(t, gap) {
			return false
		}
	}
	return true
}

// deltaEvery is how often the scripted Claude emits a text delta.
const deltaEvery = 50 * time.Millisecond

// streamTime is how long text takes to stream at -stream-rate.
func (d *driver) streamTime(text string) time.Duration {
	if d.cfg.streamRate <= 0 {
		return 0
	}
	return time.Duration(float64(len(text)) / float64(d.cfg.streamRate) * float64(time.Second))
}

// stream emits text as Claude Code does with --include-partial-messages:
// deltas as it is written, then the whole block. first stamps the turn's
// first delta (see firstText).
func (d *driver) stream(t *enginetest.Turn, id turnID, text string, first bool) bool {
	if d.cfg.streamRate > 0 {
		chunk := max(1, int(float64(d.cfg.streamRate)*deltaEvery.Seconds()))
		for i := 0; i < len(text); {
			j := min(len(text), i+chunk)
			for j < len(text) && !utf8.RuneStart(text[j]) {
				j++
			}
			if first && i == 0 {
				j = len(firstText(id)) // the marker goes out whole, in the first delta
				d.rec.stamp(id, func(r *turnRec) { r.textAt = time.Now() })
			}
			t.Emit(engine.Text{Text: text[i:j], Partial: true})
			i = j
			if i < len(text) && !sleepOrInterrupt(t, deltaEvery) {
				return false
			}
		}
	} else if first {
		d.rec.stamp(id, func(r *turnRec) { r.textAt = time.Now() })
	}
	t.Emit(engine.Text{Text: text})
	return true
}

// firstText is the first thing Claude writes in a turn. It and every text
// Claude writes while it works carry the turn's mark, by which the
// observer finds them in drafts and edits.
func firstText(id turnID) string { return "Looking at " + turnMark(id) + " now." }

func turnMark(id turnID) string { return "[" + id.String() + "]" }

func sleepOrInterrupt(t *enginetest.Turn, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-t.Interrupted():
		return false
	}
}

// asks says whether a turn includes an approval request.
func (d *driver) asks(id turnID) bool {
	return d.cfg.approvalEvery > 0 && (id.chat+id.turn)%d.cfg.approvalEvery == 0
}

// answer builds a Markdown answer of about answerKB (±30% by chat, so some
// finals split into more parts than others). Every section heading and the
// end marker name the turn, so the observer can tell that no part was lost.
func (d *driver) answer(id turnID) string {
	r := rand.New(rand.NewPCG(uint64(id.chat), uint64(id.turn)))
	target := int(float64(d.cfg.answerKB*1024) * (0.7 + 0.6*r.Float64()))
	var sections []string
	for size := 0; size < target || len(sections) == 0; {
		i := len(sections)
		s := fmt.Sprintf("The **decoder** in `runner/decode%d.go` assumed complete lines; the fix buffers partial "+
			"lines and checks that `a < b && c > d` holds before flushing. *Why:* the CLI writes long JSON lines in "+
			"several chunks when the pipe is full, which is exactly what happens under load.\n\n"+
			"1. Buffer the partial line\n2. Decode once complete:\n   - keep **order**\n   - report `skipped` bytes\n3. Test it\n\n"+
			"```go\nfunc flush%d(buf []byte) ([]byte, error) {\n\tif i := bytes.IndexByte(buf, '\\n'); i >= 0 {\n"+
			"\t\treturn buf[i+1:], decode(buf[:i])\n\t}\n\treturn buf, nil\n}\n```\n\n"+
			"> Run `go test ./runner/...` before you commit.\n\n", i, i)
		sections = append(sections, s)
		size += len(s) + 40
	}
	var b strings.Builder
	for i, s := range sections {
		fmt.Fprintf(&b, "## Section %d/%d of %s\n\n%s", i+1, len(sections), id, s)
	}
	fmt.Fprintf(&b, "End of answer %s.", id)
	return b.String()
}

// shortAnswer is a follow-up's answer: one section, one message.
func shortAnswer(id turnID) string {
	return fmt.Sprintf("## Section 1/1 of %s\n\nYes: the decoder keeps **order** and reports `skipped` bytes.\n\nEnd of answer %s.", id, id)
}
