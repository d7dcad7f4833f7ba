package chat

import (
	"context"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/chat/turnstate"
	"github.com/untether/untether/engine"
)

// approval hands a request of the agent to the broker, and has the
// frontend show a prompt when the owner has to decide.
func (t *turn) approval(ctx context.Context, conn engine.Conn, e engine.ApprovalRequest) {
	a, b := t.a, t.a.c
	st := b.Settings(a.key)
	a.mu.Lock()
	mode, startDir := a.mode, a.startDir
	a.mu.Unlock()
	m := a.machine()
	req := approvals.Request{RequestID: e.RequestID, Kind: e.Kind, ToolName: e.ToolName, Input: e.Input, Suggestions: e.Suggestions,
		ToolUseID: e.ToolUseID, BlockedPath: e.BlockedPath, Description: e.Description,
		DecisionReasonType: e.DecisionReasonType, ClassifierApprovable: e.ClassifierApprovable,
		ChatID: a.place.ChatID, SessionKey: a.key, PermissionMode: mode, PlanMode: st.PlanMode,
		WorkDir: startDir, UploadDir: m.UploadFolder(a.key), Where: m.Where()}
	sub, err := b.broker.Submit(ctx, req, conn)
	if err != nil {
		b.log.Warn("approval request not handled", "chat_id", a.place.ChatID, "request_id", e.RequestID, "err", err)
		// Never leave the agent waiting.
		_ = conn.Deny(ctx, e.RequestID, "untether could not handle this request: "+b.redact(err.Error()), false)
		return
	}
	if sub.Auto() {
		if sub.Outcome == approvals.OutcomeDenied {
			t.v.AutoDenied(b.redact(sub.Reason), b.redact(sub.Message))
		}
		return
	}
	t.st.Phase = turnstate.PhaseWaiting
	t.v.Prompt(ctx, sub.Prompt)
}
