package chat

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/token"
)

// Undo: every prompt goes to the agent under an id of the bot's (a UUID,
// engine.PromptIDs); after a turn that changed files the engine's dry run
// (engine.Rewinder) says which, and the frontend offers to undo them. A
// press undoes them through the live process, or, after a restart or once
// the process has gone idle, a process started to resume the session for
// that alone.

var (
	// ErrNoUndo: the conversation's engine cannot undo file changes.
	ErrNoUndo = errors.New("this engine cannot undo file changes")
	// ErrUndoBusy: a turn runs; undoing under it would pull files from
	// under the agent.
	ErrUndoBusy = errors.New("a turn is running")
	// ErrNoSession: the conversation has no session to undo in (/new).
	ErrNoSession = errors.New("no session to undo in")
)

// UndoOffer is a turn's offer to undo its file changes (Final.Undo).
type UndoOffer struct {
	// ID names the turn's prompt to Core.Undo.
	ID string
	// Files are what the turn changed, as the engine's dry run lists them.
	Files []string
}

// UndoResult is what Core.Undo did.
type UndoResult struct {
	// Files are the files that came back (or would, when Confirm).
	Files []string
	// Confirm: nothing was undone yet, because later turns changed files
	// too (or the bot no longer knows what this turn changed): they would
	// go as well. Undo again with confirmed to do it.
	Confirm bool
}

// undoBook remembers what each recent turn changed, by prompt id: a press
// that would undo more than that asks first.
type undoBook struct {
	mu    sync.Mutex
	files map[string][]string
	order []string
	// latest is each conversation's last turn that changed files: an undo
	// of an earlier one takes that one's too, even of the same file.
	latest map[string]string
	// shown are the files a confirm listed, by prompt id: a confirm pressed
	// after more changes asks again.
	shown map[string][]string
}

// undoKept bounds the book: older turns are confirmed first.
const undoKept = 512

func (u *undoBook) put(key, id string, files []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.files == nil {
		u.files, u.latest, u.shown = map[string][]string{}, map[string]string{}, map[string][]string{}
	}
	u.latest[key] = id
	u.files[id] = files
	u.order = append(u.order, id)
	if len(u.order) > undoKept {
		delete(u.files, u.order[0])
		delete(u.shown, u.order[0])
		u.order = u.order[1:]
	}
}

// alone says whether undoing turn id of conversation key would undo files
// only that turn changed: it is the latest that changed any, and files are
// its own.
func (u *undoBook) alone(key, id string, files []string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	own, known := u.files[id]
	return known && u.latest[key] == id && !slices.ContainsFunc(files, func(f string) bool { return !slices.Contains(own, f) })
}

// show records the files a confirm of id listed; covered says whether
// files are all among those.
func (u *undoBook) show(id string, files []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.shown == nil {
		u.files, u.latest, u.shown = map[string][]string{}, map[string]string{}, map[string][]string{}
	}
	u.shown[id] = files
}

func (u *undoBook) covered(id string, files []string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	shown, ok := u.shown[id]
	return ok && !slices.ContainsFunc(files, func(f string) bool { return !slices.Contains(shown, f) })
}

// sendPrompt gives the agent the turn's prompt, under an id of the bot's
// when the engine takes one (the same id when it is sent again).
func (t *turn) sendPrompt(ctx context.Context, conn engine.Conn, text string) error {
	if id, running := t.a.takeSteered(t.qp.Seq, conn); running {
		t.promptID, t.tookOver = id, true // the agent runs it already: sent when it was steered
		return nil
	}
	ids, ok := conn.(engine.PromptIDs)
	if !ok {
		return conn.Send(ctx, text)
	}
	if t.promptID == "" {
		t.promptID = token.UUID()
	}
	return ids.SendAs(ctx, t.promptID, text)
}

// undoOffer asks the engine what the finished turn changed that it can
// undo: nil when nothing (no files, only shell commands, an engine
// without Rewinder). rewinds says whether the engine could have.
func (t *turn) undoOffer(ctx context.Context) (offer *UndoOffer, rewinds bool) {
	rw, ok := t.a.liveConn().(engine.Rewinder)
	if !ok || t.promptID == "" {
		return nil, false
	}
	dry, err := rw.Rewind(ctx, t.promptID, true)
	if err != nil {
		if !errors.Is(err, engine.ErrNothingToRewind) {
			t.a.c.log.Warn("could not ask what the turn changed", "chat_id", t.a.place.ChatID, "err", err)
		}
		return nil, true
	}
	if len(dry.Files) == 0 {
		return nil, true
	}
	t.a.c.undo.put(t.a.key, t.promptID, dry.Files)
	return &UndoOffer{ID: t.promptID, Files: dry.Files}, true
}

// Undo undoes the file changes of the conversation's turn whose prompt
// had id (UndoOffer.ID) and of every turn after it. Unless confirmed it
// first checks that they are this turn's alone, and otherwise undoes
// nothing and asks (UndoResult.Confirm). It never waits behind a turn: a
// running one gives ErrUndoBusy.
func (c *Core) Undo(ctx context.Context, key string, p Place, id string, confirmed bool) (UndoResult, error) {
	a := c.sessionFor(key, p)
	// No turn starts while the undo runs (pop waits for it): the check
	// and the mark are one step, under the session's lock.
	a.mu.Lock()
	if a.undoing || a.workingLocked() {
		a.mu.Unlock()
		return UndoResult{}, ErrUndoBusy
	}
	a.undoing = true
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.undoing = false
		if len(a.queue) > 0 || len(a.retrying) > 0 {
			a.startLocked()
		}
		a.mu.Unlock()
		signal(a.wake)
	}()
	rw, done, err := a.rewinder(ctx)
	if err != nil {
		return UndoResult{}, err
	}
	defer done()
	dry, err := rw.Rewind(ctx, id, true)
	if err != nil {
		return UndoResult{}, err
	}
	// Unconfirmed, only the latest turn's own changes go without asking; a
	// confirm covers only what it listed (more changed since: ask again).
	if confirmed && !c.undo.covered(id, dry.Files) || !confirmed && !c.undo.alone(key, id, dry.Files) {
		c.undo.show(id, dry.Files)
		return UndoResult{Files: dry.Files, Confirm: true}, nil
	}
	if _, err := rw.Rewind(ctx, id, false); err != nil {
		return UndoResult{}, err
	}
	c.log.Info("undid a turn's file changes", "chat_id", p.ChatID, "session_key", key, "files", len(dry.Files))
	return UndoResult{Files: dry.Files}, nil
}

// rewinder is the session's live process as a Rewinder, or a process
// started to resume the session for the undo alone (closed by done).
func (a *session) rewinder(ctx context.Context) (rw engine.Rewinder, done func(), err error) {
	if conn := a.liveConn(); conn != nil {
		rw, ok := conn.(engine.Rewinder)
		if !ok {
			return nil, nil, ErrNoUndo
		}
		return rw, func() {}, nil
	}
	b := a.c
	rec, ok, err := b.store.Session(a.key)
	if err != nil {
		return nil, nil, fmt.Errorf("read the conversation's session: %w", err)
	}
	if !ok {
		return nil, nil, ErrNoSession
	}
	// The directory as a session start checks it (links resolved, inside
	// the roots); a failed check sets the session aside: nothing to undo.
	workDir := b.CheckedWorkDir(a.key, a.place, 0)
	if rec, ok, err = b.store.Session(a.key); err != nil || !ok {
		return nil, nil, ErrNoSession
	}
	m := b.MachineFor(a.key)
	st := b.Settings(a.key)
	spec := engine.Spec{SessionKey: a.key, Resume: rec.SessionID, Model: st.Model, PermissionMode: st.PermissionMode,
		WorkDir: workDir}
	conn, err := m.Engine.Start(ctx, spec)
	if err != nil {
		return nil, nil, fmt.Errorf("resume the session to undo: %w", err)
	}
	go func() {
		for range conn.Events() { // read to the end, as every Conn wants
		}
	}()
	closeIt := func() { _ = conn.Close(context.WithoutCancel(ctx)) }
	rw, ok = conn.(engine.Rewinder)
	if !ok {
		closeIt()
		return nil, nil, ErrNoUndo
	}
	return rw, closeIt, nil
}

// UndoID is the id of the final's undo offer, "" without one.
func (f Final) UndoID() string {
	if f.Undo == nil {
		return ""
	}
	return f.Undo.ID
}
