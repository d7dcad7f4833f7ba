package chat_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/chat"
	"github.com/untether/untether/chat/turnstate"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/redact"
)

// fakeEngine starts scripted sessions (enginetest) in place of an agent.
type fakeEngine struct {
	script enginetest.Script
	opts   []enginetest.Option // how its sessions behave beyond the script (steering like Codex)
}

func (e fakeEngine) Start(_ context.Context, spec engine.Spec) (engine.Conn, error) {
	return enginetest.New("s-"+spec.SessionKey, e.script, e.opts...), nil
}

// everyone allows every chat and user.
type everyone struct{}

func (everyone) Turn(int64, int64, bool) (bool, bool) { return true, true }
func (everyone) Held(prefs.HeldSession) (bool, bool)  { return true, true }

// recorder is a frontend that writes down what the core shows it.
type recorder struct {
	mu      sync.Mutex
	calls   []string
	prompts []*approvals.Prompt
	finals  []chat.Final
}

func (r *recorder) add(call string) {
	r.mu.Lock()
	r.calls = append(r.calls, call)
	r.mu.Unlock()
}

func (r *recorder) Note(chat.Place, int, chat.Note)                              { r.add("note") }
func (r *recorder) Queued(chat.Place, int, *prefs.Origin, int)                   { r.add("queued") }
func (r *recorder) QueueDropped(chat.Place)                                      {}
func (r *recorder) Announce(context.Context, chat.Place, prefs.QueuedPrompt) int { return 0 }
func (r *recorder) SessionStarted(context.Context, chat.Place, string, string) {
	r.add("session started")
}
func (r *recorder) PromptResolved(approvals.Resolution) { r.add("prompt resolved") }
func (r *recorder) StartTurn(chat.TurnStart) chat.TurnSurface {
	r.add("turn")
	return &turnRecorder{r: r}
}

// turnRecorder is the recorder's view of one turn.
type turnRecorder struct{ r *recorder }

func (t *turnRecorder) Inputs(_ context.Context, qp prefs.QueuedPrompt) (prefs.QueuedPrompt, error) {
	return qp, nil
}
func (t *turnRecorder) AgentText(_ context.Context, _, _, text string) string { return text }
func (t *turnRecorder) Wake() <-chan struct{}                                 { return nil }
func (t *turnRecorder) Woken(context.Context)                                 {}
func (t *turnRecorder) Refresh(bool)                                          {}
func (t *turnRecorder) Streamed(string)                                       {}
func (t *turnRecorder) ActionsChanged()                                       {}
func (t *turnRecorder) Pause(bool)                                            {}
func (t *turnRecorder) WaitingForSlot(int)                                    { t.r.add("waiting") }
func (t *turnRecorder) WaitingToStart(int)                                    { t.r.add("waiting to start") }
func (t *turnRecorder) StartDelayed()                                         {}
func (t *turnRecorder) Prompt(_ context.Context, p *approvals.Prompt) {
	t.r.mu.Lock()
	t.r.prompts = append(t.r.prompts, p)
	t.r.mu.Unlock()
	t.r.add("prompt")
}
func (t *turnRecorder) AutoDenied(string, string)          { t.r.add("auto denied") }
func (t *turnRecorder) Replayed(context.Context)           {}
func (t *turnRecorder) Stalled(turnstate.Stall, time.Time) { t.r.add("stalled") }
func (t *turnRecorder) Unstalled(bool)                     {}
func (t *turnRecorder) Answer(_ context.Context, f chat.Final) {
	t.r.mu.Lock()
	t.r.finals = append(t.r.finals, f)
	t.r.mu.Unlock()
	t.r.add("answer")
}
func (t *turnRecorder) Cancelled(context.Context, bool)      { t.r.add("cancelled") }
func (t *turnRecorder) Failed(context.Context, chat.Failure) { t.r.add("failed") }
func (t *turnRecorder) Stopping(context.Context)             { t.r.add("stopping") }
func (t *turnRecorder) Close(context.Context, bool)          { t.r.add("closed") }
func (t *turnRecorder) Leave()                               {}
func (t *turnRecorder) Stop()                                {}

// watcher is an Observer that keeps every event.
type watcher struct {
	mu     sync.Mutex
	events []chat.Event
}

func (w *watcher) Observe(ev chat.Event) {
	w.mu.Lock()
	w.events = append(w.events, ev)
	w.mu.Unlock()
}

func (w *watcher) kinds() []chat.EventKind {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []chat.EventKind
	for _, ev := range w.events {
		if ev.Kind != chat.EvProgress && ev.Kind != chat.EvText { // as many as the turn's changes
			out = append(out, ev.Kind)
		}
	}
	return out
}

// A conversation without Telegram: a prompt runs on the fake engine, its
// tool call waits for the owner, a press by token answers it, the answer
// comes back. The owning frontend is shown each step; an observer that
// watched from the start sees the same in order, one that starts while the
// prompt waits gets a snapshot of the waiting turn first.
func TestPromptApprovalPressAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		store, err := prefs.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		input, _ := json.Marshal(map[string]any{"command": "make"})
		eng := fakeEngine{script: func(tr *enginetest.Turn) {
			tr.Start("m")
			d := tr.Ask(engine.ApprovalRequest{RequestID: "r1", ToolName: "Bash", DisplayName: "Bash", Input: input, ToolUseID: "toolu_1"})
			if d.Allow {
				tr.Complete("tool allowed")
				return
			}
			tr.Complete("tool denied")
		}}
		const owner, chatID = 7, 7
		front := &recorder{}
		core, err := chat.New(chat.Config{WorkDir: t.TempDir()}, eng, store, everyone{}, func(id int64) bool { return id == owner },
			front, redact.New(), slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		core.Start(ctx)
		from := &watcher{}
		stop := core.Watch("", from)
		defer stop()

		p := prefs.Prompt{UpdateID: 1, ChatID: chatID, UserID: owner, MessageID: 10, Text: "build it", Date: time.Now()}
		seq, _, err := store.AcceptUpdate(p.UpdateID, "7", &p)
		if err != nil {
			t.Fatal(err)
		}
		core.Submit("7", chat.Place{ChatID: chatID}, prefs.QueuedPrompt{Key: "7", Seq: seq, Prompt: p})
		synctest.Wait()
		front.mu.Lock()
		if len(front.prompts) != 1 {
			front.mu.Unlock()
			t.Fatalf("the frontend was shown %d prompts, want 1 (calls %v)", len(front.prompts), front.calls)
		}
		prompt := front.prompts[0]
		front.mu.Unlock()

		late := &watcher{}
		stopLate := core.Watch("7", late)
		defer stopLate()
		late.mu.Lock()
		if len(late.events) != 1 || late.events[0].Kind != chat.EvSnapshot || !late.events[0].Status.Running ||
			late.events[0].Turn == nil || late.events[0].Turn.Phase != turnstate.PhaseWaiting {
			t.Errorf("a late watcher's first event: %+v, want a snapshot of the waiting turn", late.events)
		}
		late.mu.Unlock()

		var approve string
		for _, a := range prompt.Actions {
			if a.Kind == approvals.ActionApprove {
				approve = a.Token
			}
		}
		if _, err := core.Press(ctx, approve, 99, chatID); err == nil {
			t.Error("a stranger's press was taken")
		}
		res, err := core.Press(ctx, approve, owner, chatID)
		if err != nil || res.Outcome != approvals.OutcomeApproved {
			t.Fatalf("press: %+v, %v", res, err)
		}
		synctest.Wait()

		front.mu.Lock()
		calls, finals := slices.Clone(front.calls), slices.Clone(front.finals)
		front.mu.Unlock()
		if len(finals) != 1 || finals[0].Result != "tool allowed" || finals[0].Outcome != chat.OutcomeDone {
			t.Fatalf("finals %+v (calls %v)", finals, calls)
		}
		want := []string{"turn", "session started", "prompt", "answer", "closed"}
		if got := slices.DeleteFunc(calls, func(c string) bool { return c == "note" }); !slices.Equal(got, want) {
			t.Errorf("the frontend was shown %v, want %v", got, want)
		}
		wantEv := []chat.EventKind{chat.EvTurnStarted, chat.EvPrompt, chat.EvPromptResolved, chat.EvAnswer, chat.EvTurnEnded}
		if got := slices.DeleteFunc(from.kinds(), func(k chat.EventKind) bool { return k == chat.EvNote }); !slices.Equal(got, wantEv) {
			t.Errorf("the observer saw %v, want %v", got, wantEv)
		}
		if got := late.kinds(); len(got) < 4 || got[1] != chat.EvPromptResolved || got[len(got)-1] != chat.EvTurnEnded {
			t.Errorf("the late observer saw %v", got)
		}
		if st, ok := core.Status("7"); !ok || st.Running || !st.Live {
			t.Errorf("status after the turn: %+v %v", st, ok)
		}
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := core.Stop(sctx); err != nil {
			t.Fatal(err)
		}
	})
}
