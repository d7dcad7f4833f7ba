package chat_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/redact"
)

// rulesEngine is the fake engine with the ProjectRules capability: it
// answers the rules it is given, and notes the directories it was asked.
type rulesEngine struct {
	fakeEngine
	mu    sync.Mutex
	rules []engine.ProjectRule
	asked []string
}

// errUnread is what the engine says beside an Unread rule.
var errUnread = errors.New("read the rules of settings.local.json: file too big")

func (e *rulesEngine) ProjectRules(_ context.Context, dir string) ([]engine.ProjectRule, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, dir)
	var err error
	if slices.ContainsFunc(e.rules, func(r engine.ProjectRule) bool { return r.Unread }) {
		err = errUnread
	}
	return append([]engine.ProjectRule(nil), e.rules...), err
}

func (e *rulesEngine) set(rules ...engine.ProjectRule) {
	e.mu.Lock()
	e.rules = rules
	e.mu.Unlock()
}

// noteRecorder keeps the notes the core gives, in order with its calls.
type noteRecorder struct {
	recorder
	notes []chat.Note
}

func (r *noteRecorder) Note(_ chat.Place, _ int, n chat.Note) {
	r.mu.Lock()
	r.notes = append(r.notes, n)
	r.calls = append(r.calls, "note")
	r.mu.Unlock()
}

func (r *noteRecorder) StartTurn(ts chat.TurnStart) chat.TurnSurface {
	r.add("turn")
	return &turnRecorder{r: &r.recorder}
}

// TestProjectRulesNoticedOncePerSet: before an agent starts, the project's
// rules that act unasked reach the chat as one note; the same set at the
// next start (a new process) gives none, a changed set a new one, and a
// rule the owner saved with Always allow is not the project's.
func TestProjectRulesNoticedOncePerSet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store, err := prefs.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		work, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		input, _ := json.Marshal(map[string]any{"command": "make"})
		always := json.RawMessage(`{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"make"}],"behavior":"allow","destination":"localSettings"}`)
		eng := &rulesEngine{fakeEngine: fakeEngine{script: func(tr *enginetest.Turn) {
			tr.Start("m")
			if tr.Prompt == "ask" {
				tr.Ask(engine.ApprovalRequest{RequestID: "r1", ToolName: "Bash", Input: input, ToolUseID: "t1",
					Suggestions: []json.RawMessage{always}})
			}
			tr.Complete("done")
		}}}
		const owner = 7
		var update int64
		// run is one prompt in a bot process of its own: a new agent
		// process each time. It returns the notes of project rules and
		// whether they came before the turn's answer.
		run := func(text string) []chat.NoteProjectRules {
			t.Helper()
			front := &noteRecorder{}
			core, err := chat.New(chat.Config{WorkDir: work}, eng, store, everyone{}, func(id int64) bool { return id == owner },
				front, redact.New(), slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			core.Start(ctx)
			update++
			p := prefs.Prompt{UpdateID: update, ChatID: owner, UserID: owner, MessageID: 10 + int(update), Text: text, Date: time.Now()}
			seq, _, err := store.AcceptUpdate(p.UpdateID, "7", &p)
			if err != nil {
				t.Fatal(err)
			}
			core.Submit("7", chat.Place{ChatID: owner}, prefs.QueuedPrompt{Key: "7", Seq: seq, Prompt: p})
			synctest.Wait()
			front.mu.Lock()
			if len(front.prompts) == 1 {
				var tok string
				for _, a := range front.prompts[0].Actions {
					if a.Kind == approvals.ActionAlways {
						tok = a.Token
					}
				}
				front.mu.Unlock()
				if res, err := core.Press(ctx, tok, owner, owner); err != nil || res.Outcome != approvals.OutcomeAlways {
					t.Fatalf("always allow: %+v, %v", res, err)
				}
				synctest.Wait()
				front.mu.Lock()
			}
			var notes []chat.NoteProjectRules
			for _, n := range front.notes {
				if n, ok := n.(chat.NoteProjectRules); ok {
					notes = append(notes, n)
				}
			}
			sawNote, answered := false, false
			for _, c := range front.calls {
				if c == "note" && !answered {
					sawNote = true
				}
				answered = answered || c == "answer"
			}
			if len(notes) > 0 && !sawNote {
				t.Errorf("the notice came after the answer: %v", front.calls)
			}
			if !answered {
				t.Errorf("no answer: %v", front.calls)
			}
			front.mu.Unlock()
			sctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			if err := core.Stop(sctx); err != nil {
				t.Fatal(err)
			}
			return notes
		}

		file := filepath.Join(work, ".claude", "settings.local.json")
		bash := engine.ProjectRule{Rule: "Bash", File: file}
		dir := engine.ProjectRule{Rule: "/home/owner", Dir: true, File: file}
		eng.set(bash, dir)
		notes := run("hi")
		if len(notes) != 1 || notes[0].Dir != work || len(notes[0].Rules) != 2 || notes[0].Rules[0] != bash || notes[0].Rules[1] != dir {
			t.Fatalf("first start: notes %+v, want one naming both rules in %s", notes, work)
		}
		if eng.asked[0] != work {
			t.Errorf("the engine was asked about %q, want %q", eng.asked[0], work)
		}
		eng.set(dir, bash) // the same set, in another order
		if notes := run("again"); len(notes) != 0 {
			t.Errorf("same set again: notes %+v, want none", notes)
		}
		write := engine.ProjectRule{Rule: "Write", File: file}
		eng.set(bash, dir, write)
		if notes := run("changed"); len(notes) != 1 || len(notes[0].Rules) != 3 {
			t.Errorf("changed set: notes %+v, want one with 3 rules", notes)
		}

		// The owner's own Always allow answer, written where the CLI
		// writes it, is not shown as the project's.
		eng.set()
		if notes := run("ask"); len(notes) != 0 {
			t.Errorf("no rules: notes %+v", notes)
		}
		eng.set(engine.ProjectRule{Rule: "Bash(make)", File: file})
		if notes := run("after always"); len(notes) != 0 {
			t.Errorf("the owner's own rule was noticed: %+v", notes)
		}
		// Beside a planted one, only the planted one is shown.
		eng.set(engine.ProjectRule{Rule: "Bash(make)", File: file}, engine.ProjectRule{Rule: "Bash(curl *)", File: file})
		if notes := run("planted beside"); len(notes) != 1 || len(notes[0].Rules) != 1 || notes[0].Rules[0].Rule != "Bash(curl *)" {
			t.Errorf("planted beside the owner's: %+v", notes)
		}

		// A file the engine could not read is told (the agent may apply
		// it), once while it stays so; once readable, its rules are told.
		unread := engine.ProjectRule{File: file, Unread: true}
		eng.set(unread)
		if notes := run("unread"); len(notes) != 1 || len(notes[0].Rules) != 1 || notes[0].Rules[0] != unread {
			t.Errorf("unread file: notes %+v, want one naming it", notes)
		}
		if notes := run("unread again"); len(notes) != 0 {
			t.Errorf("unread file again: notes %+v, want none", notes)
		}
		eng.set(engine.ProjectRule{Rule: "Bash(wget *)", File: file})
		if notes := run("readable again"); len(notes) != 1 {
			t.Errorf("the file read again: notes %+v, want one", notes)
		}
	})
}
