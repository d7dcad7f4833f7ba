package codex

import (
	"encoding/json"

	"github.com/untether/untether/engine"
)

// Codex's user-input questions (item/tool/requestUserInput, the model's
// request_user_input tool) are the engine's question request, as Claude's
// AskUserQuestion is: the same shape (a question, a header, options of a
// label and a description), so the bot's question buttons show them. The
// answers go back by question id: {"answers": {ID: {"answers": [TEXT]}}}.

// userInputParams are the parts of the request the engine reads.
type userInputParams struct {
	ItemID    string `json:"itemId"`
	Questions []struct {
		ID       string `json:"id"`
		Header   string `json:"header"`
		Question string `json:"question"`
		Options  []struct {
			Label       string `json:"label"`
			Description string `json:"description"`
		} `json:"options"`
	} `json:"questions"`
}

// question maps a requestUserInput request; ok false when its params
// cannot be read (it is refused then).
func (c *Conn) question(m message) (engine.ApprovalRequest, approval, bool) {
	var p userInputParams
	if !c.decode(m, &p) || len(p.Questions) == 0 {
		return engine.ApprovalRequest{}, approval{}, false
	}
	// The question's text is what the bot's answers are keyed by
	// (approvals' "answers": question → answer); the id is Codex's key.
	ids := make(map[string]string, len(p.Questions))
	type option struct {
		Label       string `json:"label"`
		Description string `json:"description"`
	}
	type question struct {
		Question string   `json:"question"`
		Header   string   `json:"header"`
		Options  []option `json:"options"`
	}
	qs := make([]question, 0, len(p.Questions))
	for _, q := range p.Questions {
		ids[q.Question] = q.ID
		opts := make([]option, 0, len(q.Options))
		for _, o := range q.Options {
			opts = append(opts, option{Label: c.o.Redact(o.Label), Description: c.o.Redact(o.Description)})
		}
		qs = append(qs, question{Question: c.o.Redact(q.Question), Header: c.o.Redact(q.Header), Options: opts})
	}
	input, _ := json.Marshal(map[string]any{"questions": qs})
	req := engine.ApprovalRequest{Kind: engine.RequestQuestion, ToolName: "request_user_input", DisplayName: "question",
		Input: input, ToolUseID: p.ItemID}
	return req, approval{questions: ids}, true
}

// answersFor is Codex's response to a question request from the input
// the bot allowed it with (its "answers": question → answer); a question
// without an answer gets none. Declined, every answer is empty.
func answersFor(a approval, updatedInput json.RawMessage) map[string]any {
	var in struct {
		Answers map[string]string `json:"answers"`
	}
	_ = json.Unmarshal(updatedInput, &in) // no answers: empty ones
	out := make(map[string]any, len(a.questions))
	for question, id := range a.questions {
		answers := []string{}
		if ans, ok := in.Answers[question]; ok {
			answers = append(answers, ans)
		}
		out[id] = map[string]any{"answers": answers}
	}
	return map[string]any{"answers": out}
}
