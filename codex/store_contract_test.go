package codex_test

import (
	"context"
	"testing"

	"github.com/untether/untether/engine"
)

// The session store against the real Codex: what its app-server writes is
// what the store reads (docs/protocol-codex.md, "Codex's threads on
// disk").
func TestStoreListsAndReadsRealThreads(t *testing.T) {
	r := newRig(t, nil)
	c := r.start(t, "")
	id := c.SessionID()
	var seen []engine.Event
	send(t, c, "first prompt here")
	next[engine.TurnCompleted](t, c, &seen)
	send(t, c, "second prompt")
	next[engine.TurnCompleted](t, c, &seen)
	_ = c.Close(context.Background())

	// A thread of another project in the same CODEX_HOME.
	other := *r.eng
	other.Base.WorkDir = t.TempDir()
	oc, err := other.Start(context.Background(), engine.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	otherID := oc.SessionID()
	send(t, oc, "elsewhere")
	next[engine.TurnCompleted](t, oc, &seen)
	_ = oc.Close(context.Background())

	store := r.eng.SessionStore()
	if store == nil {
		t.Fatal("no store with CODEX_HOME set")
	}
	ctx := context.Background()
	list, err := store.ListSessions(ctx, r.dir, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != id || list[0].FirstPrompt != "first prompt here" || list[0].Turns != 2 ||
		list[0].Size == 0 || list[0].Dir != r.dir || list[0].Modified.IsZero() {
		t.Fatalf("list of the project = %+v, want thread %s with two prompts", list, id)
	}
	st, ok := store.StatSession(r.dir, id)
	if !ok || st.Size != list[0].Size || !st.Modified.Equal(list[0].Modified) {
		t.Errorf("stat = %+v, %v; listed %+v", st, ok, list[0])
	}
	p, err := store.ReadSession(ctx, r.dir, otherID)
	if err != nil || p.BelongsTo(r.dir) || !p.BelongsTo(other.Base.WorkDir) || p.FirstPrompt != "elsewhere" {
		t.Errorf("the other project's thread read from this one = %+v, %v", p, err)
	}

	// The listed id is what a chat resumes: a third prompt in a new
	// process goes to the same thread, and the store counts it.
	c = r.start(t, list[0].ID)
	send(t, c, "third")
	next[engine.TurnCompleted](t, c, &seen)
	if c.SessionID() != id {
		t.Errorf("resumed %s, listed %s", c.SessionID(), id)
	}
	p, err = store.ReadSession(ctx, r.dir, id)
	if err != nil || p.Turns != 3 || p.Size <= list[0].Size || p.FirstPrompt != "first prompt here" {
		t.Errorf("after the resumed turn = %+v, %v", p, err)
	}
}
