package approvals

import (
	"encoding/json"

	"slices"
	"strings"
	"unicode/utf8"

	"github.com/untether/untether/engine"
)

// autoAnswer is a decision made without asking the user.
type autoAnswer struct {
	outcome Outcome
	reason  string
	dec     *decision
}

func autoAllow(req Request, reason string) *autoAnswer {
	return &autoAnswer{outcome: OutcomeApproved, reason: reason, dec: allowWith(req.Input)}
}

func autoDeny(msg, reason string) *autoAnswer {
	return &autoAnswer{outcome: OutcomeDenied, reason: reason, dec: denyWith(msg)}
}

// decideLocked answers req at once, or returns the pending entry to keep.
// A plan and questions are about talking to the user, so neither the allow
// list nor skip-permissions nor bypass mode answers them; nor a request
// Claude Code's safety checks flagged.
func (b *Broker) decideLocked(req Request) (*autoAnswer, *pending) {
	switch req.Kind {
	case engine.RequestPlan:
		return b.decidePlanLocked(req)
	case engine.RequestQuestion:
		q, err := parseQuestions(req.Input)
		if err != nil {
			return autoDeny(msgBadQuestions, "unreadable questions"), nil
		}
		return nil, &pending{kind: KindQuestion, q: q}
	}
	// Claude Code's safety checks flag what can run code or destroy data
	// even inside the project (.git/hooks, .claude/settings.json, rm -rf /).
	// Under skip-permissions and bypass mode the CLI settles most of them
	// itself and asks only what it wants a person to see even then
	// (measured: rm -rf /), so none is approved here: not by the allow
	// list, nor by skip or bypass.
	safety := req.SafetyCheck()
	switch {
	case safety:
	case b.skip:
		return autoAllow(req, "skip permissions"), nil
	case req.PermissionMode == engine.ModeBypass:
		return autoAllow(req, engine.ModeBypass+" mode"), nil
	}
	// A listed file tool is allowed only on paths inside the session's
	// scope; anything else is shown, with the paths that are outside.
	inside, outside := b.checkPaths(req)
	if inside && !safety && b.allow.allows(req.ToolName, req.Input) {
		return autoAllow(req, "allow list"), nil
	}
	return nil, &pending{kind: KindTool, outside: outside}
}

type planInput struct {
	Plan         string `json:"plan"`
	PlanFilePath string `json:"planFilePath"`
}

// decidePlanLocked runs the ExitPlanMode rules in order: auto plan mode,
// the cooldown after Pause & Outline, then the outline gate.
func (b *Broker) decidePlanLocked(req Request) (*autoAnswer, *pending) {
	var in planInput
	_ = json.Unmarshal(req.Input, &in) // an unreadable plan is still shown, just without text
	if req.PlanMode == PlanAuto {
		b.clearPlanLocked(req.SessionKey)
		return autoAllow(req, "plan mode auto"), nil
	}
	if active, left, _ := b.cool.Check(req.SessionKey); active {
		return autoDeny(msgCooldown(left), "plan cooldown"), nil
	}
	if s := b.sessions[req.SessionKey]; s != nil && s.gateArmed && b.minOutline > 0 {
		plan := visibleChars(in.Plan)
		if s.noted < b.minOutline && plan < b.minOutline {
			return autoDeny(msgOutlineGate(max(s.noted, plan), b.minOutline), "outline gate"), nil
		}
	}
	return nil, &pending{kind: KindPlan, plan: in}
}

// NoteAssistantText counts assistant text toward the outline gate. Call it
// with each complete assistant text block of the session (not partial
// deltas). It does nothing unless a Pause & Outline is waiting for its outline.
func (b *Broker) NoteAssistantText(sessionKey, text string) {
	n := visibleChars(text)
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.sessions[sessionKey]; s != nil && s.gateArmed {
		s.noted += n
	}
}

func visibleChars(s string) int { return utf8.RuneCountInString(strings.TrimSpace(s)) }

// clearPlanLocked ends the plan flow after an explicit decision.
func (b *Broker) clearPlanLocked(key string) {
	b.cool.Reset(key)
	if s := b.sessions[key]; s != nil {
		s.gateArmed, s.noted = false, 0
		b.tidyLocked(key)
	}
}

// mintLocked creates the buttons of a new pending request.
func (b *Broker) mintLocked(p *pending) {
	add := func(k ActionKind, label string) {
		p.actions = append(p.actions, Action{Kind: k, Label: label, Token: b.tokenLocked(p, k, 0)})
	}
	switch p.kind {
	case KindTool:
		add(ActionApprove, "Approve")
		add(ActionDeny, "Deny")
		if len(p.req.Suggestions) > 0 {
			add(ActionAlways, "Always allow")
		}
	case KindPlan:
		add(ActionApprove, "Approve")
		add(ActionDeny, "Deny")
		add(ActionOutline, "Pause & Outline Plan")
	case KindQuestion:
		b.mintQuestionLocked(p)
	}
}

func (b *Broker) promptLocked(p *pending) Prompt {
	pr := Prompt{
		Kind:     p.kind,
		Request:  p.req,
		Actions:  slices.Clone(p.actions),
		Plan:     p.plan.Plan,
		PlanFile: p.plan.PlanFilePath,
		Deadline: p.deadline,
	}
	pr.Outside = slices.Clone(p.outside)
	if p.kind == KindTool && len(p.req.Suggestions) > 0 {
		pr.AlwaysAllow = DescribeSuggestions(p.req.Suggestions)
	}
	if p.q != nil {
		pr.Question = p.q.view()
	}
	return pr
}

// applyLocked settles one press on p. A nil decision means nothing is
// written yet (a question in progress).
func (b *Broker) applyLocked(p *pending, ref tokenRef) (Result, *decision) {
	switch ref.action {
	case ActionOption, ActionDone, ActionOther:
		return b.applyQuestionLocked(p, ref)
	case ActionApprove:
		b.resolveLocked(p)
		if p.kind == KindPlan {
			b.clearPlanLocked(p.key.session)
		}
		return Result{Outcome: OutcomeApproved}, allowWith(p.req.Input)
	case ActionAlways:
		b.resolveLocked(p)
		d := allowWith(p.req.Input)
		d.perms = p.req.Suggestions
		return Result{Outcome: OutcomeAlways}, d
	case ActionOutline:
		b.resolveLocked(p)
		b.cool.Pause(p.key.session)
		s := b.session(p.key.session)
		s.gateArmed, s.noted = true, 0
		return Result{Outcome: OutcomeOutline}, denyWith(msgOutline)
	}
	// ActionDeny
	b.resolveLocked(p)
	switch p.kind {
	case KindPlan:
		b.clearPlanLocked(p.key.session)
		return Result{Outcome: OutcomeDenied}, denyWith(msgPlanDenied)
	case KindQuestion:
		return Result{Outcome: OutcomeDenied}, denyWith(msgQuestionsDismissed)
	}
	return Result{Outcome: OutcomeDenied}, denyWith(msgDenied)
}
