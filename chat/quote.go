package chat

import "strings"

// withQuote adds a prompt's quote after its text, so that a prompt that
// starts with a command stays one.
func withQuote(text, quote string) string {
	if quote == "" {
		return text
	}
	if strings.TrimSpace(text) == "" {
		return quote
	}
	return text + "\n\n" + quote
}
