package chat_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
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

// resolutions is a frontend that keeps the resolutions it is told.
type resolutions struct {
	*recorder
	mu  sync.Mutex
	got []approvals.Resolution
}

func (r *resolutions) PromptResolved(res approvals.Resolution) {
	r.mu.Lock()
	r.got = append(r.got, res)
	r.mu.Unlock()
}

// waitingCore is a core whose conversation "7" waits for approval of a
// Bash command, asked while nobody watched. Defer the stop it returns.
func waitingCore(t *testing.T) (*chat.Core, *resolutions, func()) {
	t.Helper()
	ctx := context.Background()
	store, err := prefs.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	input, _ := json.Marshal(map[string]any{"command": "make"})
	eng := fakeEngine{script: func(tr *enginetest.Turn) {
		tr.Start("m")
		if tr.Ask(engine.ApprovalRequest{RequestID: "r1", ToolName: "Bash", DisplayName: "Bash", Input: input, ToolUseID: "toolu_1"}).Allow {
			tr.Complete("tool allowed")
			return
		}
		tr.Complete("tool denied")
	}}
	front := &resolutions{recorder: &recorder{}}
	core, err := chat.New(chat.Config{WorkDir: t.TempDir()}, eng, store, everyone{}, func(id int64) bool { return id == 7 },
		front, redact.New(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	core.Start(ctx)
	p := prefs.Prompt{UpdateID: 1, ChatID: 7, UserID: 7, MessageID: 10, Text: "build it", Date: time.Now()}
	seq, _, err := store.AcceptUpdate(p.UpdateID, "7", &p)
	if err != nil {
		t.Fatal(err)
	}
	core.Submit("7", chat.Place{ChatID: 7}, prefs.QueuedPrompt{Key: "7", Seq: seq, Prompt: p})
	synctest.Wait()
	return core, front, func() {
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := core.Stop(sctx); err != nil {
			t.Error(err)
		}
		store.Close()
	}
}

func token(p *approvals.Prompt, k approvals.ActionKind) string {
	for _, a := range p.Actions {
		if a.Kind == k {
			return a.Token
		}
	}
	return ""
}

// A watch that begins while a request waits (a web view started after the
// prompt, or after the bot restarted) finds it in the snapshot, with
// buttons that work: it came before the watch, so no EvPrompt brings it.
func TestSnapshotCarriesWaitingPrompts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core, _, stopCore := waitingCore(t)
		defer stopCore()
		w := &watcher{}
		stop := core.Watch("", w)
		defer stop()
		w.mu.Lock()
		if len(w.events) != 1 || w.events[0].Kind != chat.EvSnapshot || len(w.events[0].Prompts) != 1 ||
			w.events[0].Prompts[0].Request.RequestID != "r1" || w.events[0].Prompts[0].Request.ToolName != "Bash" {
			w.mu.Unlock()
			t.Fatalf("the snapshot: %+v, want request r1 waiting", w.events)
		}
		p := w.events[0].Prompts[0]
		w.mu.Unlock()
		if _, err := core.PressElsewhere(context.Background(), token(p, approvals.ActionApprove), 7, 7, "Alice", approvals.SourceWeb); err != nil {
			t.Fatalf("a press on the snapshot's button: %v", err)
		}
		synctest.Wait()
		late := &watcher{}
		stopLate := core.Watch("", late)
		defer stopLate()
		if n := len(late.events[0].Prompts); n != 0 {
			t.Errorf("after the answer a snapshot still holds %d prompts", n)
		}
	})
}

// A press from elsewhere (the web) resolves the same request as the
// owner's buttons: the tool runs, the owning Surface hears the resolution
// with who pressed and where, the observers too, and the button is spent.
func TestPressElsewhereResolvesForTheOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core, front, stopCore := waitingCore(t)
		defer stopCore()
		w := &watcher{}
		stop := core.Watch("7", w)
		defer stop()
		front.mu.Lock()
		p := front.recorder.prompts[0]
		front.mu.Unlock()
		ctx := context.Background()
		if _, err := core.PressElsewhere(ctx, token(p, approvals.ActionApprove), 99, 7, "Mallory", approvals.SourceWeb); err == nil {
			t.Error("a stranger's press from elsewhere was taken")
		}
		res, err := core.PressElsewhere(ctx, token(p, approvals.ActionApprove), 7, 7, "Alice", approvals.SourceWeb)
		if err != nil || res.Outcome != approvals.OutcomeApproved {
			t.Fatalf("press elsewhere: %+v, %v", res, err)
		}
		synctest.Wait()
		front.mu.Lock()
		got := front.got
		front.mu.Unlock()
		if len(got) != 1 || got[0].Request.RequestID != "r1" || got[0].Outcome != approvals.OutcomeApproved ||
			got[0].By != "Alice" || got[0].Source != approvals.SourceWeb {
			t.Errorf("the owner heard %+v, want r1 approved by Alice on the web", got)
		}
		front.recorder.mu.Lock()
		finals := front.recorder.finals
		front.recorder.mu.Unlock()
		if len(finals) != 1 || !strings.Contains(finals[0].Result, "tool allowed") {
			t.Errorf("the turn's answer: %+v, want the tool to have run", finals)
		}
		w.mu.Lock()
		var seen bool
		for _, ev := range w.events {
			seen = seen || (ev.Kind == chat.EvPromptResolved && ev.Resolution.Source == approvals.SourceWeb && ev.Resolution.By == "Alice")
		}
		w.mu.Unlock()
		if !seen {
			t.Error("the observer did not hear the resolution with its source")
		}
		if _, err := core.PressElsewhere(ctx, token(p, approvals.ActionDeny), 7, 7, "Alice", approvals.SourceWeb); err == nil {
			t.Error("a second press on an answered request was taken")
		}
	})
}
