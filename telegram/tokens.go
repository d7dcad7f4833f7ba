package telegram

import (
	"sync"

	"github.com/untether/untether/token"
)

// tokens maps the short random callback_data of bot-made buttons (not the
// approval broker's) to what a press means. A press with a token that is not
// here is stale: the bot restarted, or the button was spent.
type tokens[T any] struct {
	mu sync.Mutex
	m  map[string]T
}

func (tk *tokens[T]) add(v T) string {
	tok := token.New()
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.m == nil {
		tk.m = map[string]T{}
	}
	tk.m[tok] = v
	return tok
}

func (tk *tokens[T]) get(tok string) (T, bool) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	v, ok := tk.m[tok]
	return v, ok
}

func (tk *tokens[T]) remove(tok string) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	delete(tk.m, tok)
}

// removeIf drops every token whose value matches.
func (tk *tokens[T]) removeIf(match func(T) bool) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	for t, v := range tk.m {
		if match(v) {
			delete(tk.m, t)
		}
	}
}
