package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/untether/untether/engine"
)

var _ engine.SideAsker = (*Session)(nil)

// Aside implements engine.SideAsker with the side_question control
// request (measured, docs/protocol.md): the CLI answers from a model call
// of its own while the turn goes on.
func (s *Session) Aside(ctx context.Context, question string) (string, error) {
	raw, err := s.control(ctx, map[string]any{"subtype": "side_question", "question": question, "history": []any{}})
	if err != nil {
		return "", fmt.Errorf("ask aside: %w", err)
	}
	var a struct {
		Response string `json:"response"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("decode side_question answer: %w", err)
	}
	return a.Response, nil
}
