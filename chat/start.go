package chat

import (
	"context"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/filesend"
)

// ensureConn returns the live connection, starting (or resuming) one.
func (a *session) ensureConn(ctx context.Context, t *turn) (engine.Conn, error) {
	b := a.c
	a.mu.Lock()
	// A run past the per-turn cap gets a process of its own, started
	// without it (anyway.go).
	conn, restart := a.conn, a.restart || t.uncapped()
	a.restart = false
	a.mu.Unlock()
	if conn != nil && restart {
		a.closeConn(ctx, ReasonSettingsChanged)
		conn = nil
	}
	if conn != nil && a.continuedElsewhere(ctx) {
		// Resuming afresh loads what was said at the desk.
		b.log.Info("the session was continued elsewhere: resuming it afresh", "chat_id", a.place.ChatID, "session_key", a.key)
		b.note(a.key, a.place, t.qp.MessageID, NoteContinuedElsewhere{})
		a.closeConn(ctx, ReasonContinuedElsewhere)
		conn = nil
	}
	if conn != nil {
		// Reused, a process is checked as a start checks the chat's
		// directory: one that fails is closed (sessionWorkDir sets the
		// session aside), and the turn starts afresh where the check sends
		// the chat, with the notice a start gives.
		a.sessionWorkDir(ctx, t.qp.MessageID)
		conn = a.liveConn()
	}
	if conn != nil {
		a.machine().Pool.Touch(a)
		return conn, nil
	}
	m := b.MachineFor(a.key)
	a.mu.Lock()
	a.mach = m
	a.mu.Unlock()
	err := m.Pool.Acquire(t.cancelReq, a, holderBusy, func() {
		t.v.WaitingForSlot(m.MaxLive)
	})
	if err != nil {
		if t.cancelReq.Err() != nil {
			return nil, errTurnCancelled
		}
		return nil, err
	}
	t.startedUp() // a start of this turn before (a retry) has ended
	release, err := m.Starts.Admit(t.cancelReq, t.v.StartDelayed, t.v.WaitingToStart)
	if err != nil {
		m.Pool.Release(a)
		return nil, errTurnCancelled
	}
	workDir := a.sessionWorkDir(ctx, t.qp.MessageID) // before the session lookup: a fallback sets it aside
	startDir := m.ResolvedDir(workDir)
	st := b.Settings(a.key)
	spec := engine.Spec{SessionKey: a.key, Model: st.Model, PermissionMode: st.PermissionMode, WorkDir: workDir,
		Partial: st.Stream != StreamOff, Uncapped: t.uncapped()}
	if rec, ok, err := b.store.Session(a.key); err != nil {
		b.log.Warn("could not read stored session", "chat_id", a.place.ChatID, "err", err)
	} else if ok {
		spec.Resume = rec.SessionID
	}
	grant := a.openGrant(m, startDir)
	if grant != nil {
		spec.MCPConfig = grant.ConfigPath()
		spec.AllowedTools = []string{filesend.AllowedTool} // the bot itself checks every path
	}
	a.tellProjectRules(ctx, m, startDir, t.qp.MessageID) // the owner sees them before the agent acts on them
	conn, err = m.Engine.Start(ctx, spec)
	if err != nil {
		release()
		closeGrant(grant)
		m.Pool.Release(a)
		if Unreachable(err) {
			return nil, &UnreachableError{Machine: m.Name, Err: err}
		}
		return nil, err
	}
	t.resumed = spec.Resume
	t.starting = release // until the agent's first event (run) or the turn's end
	t.st.SawInit = false
	a.mu.Lock()
	a.conn, a.grant, a.connSince = conn, grant, time.Now()
	a.mode = spec.PermissionMode
	a.startDir = startDir
	a.mark = storeMark{}
	a.mu.Unlock()
	a.recordHeld(conn, nil, false)
	b.surface.SessionStarted(ctx, a.place, m.Name, startDir)
	return conn, nil
}

// startedUp ends the turn's start's place in its machine's Starts: the
// agent spoke (its first event), or the turn ended.
func (t *turn) startedUp() {
	if t.starting != nil {
		t.starting()
		t.starting = nil
	}
}
