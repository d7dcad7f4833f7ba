package telegram

// Secrets never reach a chat. Every text is redacted twice: here, as it
// arrives from Claude and before the view cuts it to fit a message (a
// secret straddling a cut would leave pieces no redactor recognises), and
// in send, edit and answerCallback, the only ways out, as a backstop for
// every text the bot composes.

// redact removes every secret the bot knows (the token, Config.Secrets)
// from s.
func (b *Bot) redact(s string) string { return b.redactor.String(s) }
