package telegram

import (
	"context"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// controlOut is the bot's sender and gate as package control needs them.
type controlOut struct{ b *Bot }

func (o controlOut) Toast(ctx context.Context, id, text string) {
	o.b.api.answerCallback(ctx, id, text)
}
func (o controlOut) Send(ctx context.Context, p chat.Place, replyTo int, text string, kb view.Keyboard) {
	_, _ = o.b.api.send(ctx, p, replyTo, text, kb, outbox.High)
}
func (o controlOut) Edit(ctx context.Context, chatID int64, msgID int, text string) {
	_ = o.b.api.edit(ctx, chatID, msgID, text, nil, outbox.High, "", nil)
}
func (o controlOut) Document(ctx context.Context, p chat.Place, replyTo int, name string, data []byte, caption string) error {
	// The contents are redacted here like a message's text (sendDocument
	// redacts only the name and caption).
	_, err := o.b.api.sendDocument(ctx, p, replyTo, name, []byte(o.b.redact(string(data))), caption, outbox.High)
	return err
}

// May lets approvers act (an undo changes files like an approved edit).
func (o controlOut) May(user, chatID int64) (bool, string) {
	return o.b.allow.user(user) && o.b.approvers.mayApprove(user, chatID), view.ToastNotApprover(o.b.approvers.list())
}
