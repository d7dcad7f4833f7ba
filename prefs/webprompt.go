package prefs

import (
	"errors"
	"fmt"
)

// EnqueueWebPrompt queues p, typed on the web view, under key: durable
// before the core runs it, like a Telegram message (AcceptUpdate), but
// with no update of Telegram's to mark handled. p must carry an Origin of
// OriginWeb, so the chat's frontend announces it (its MessageID is 0).
func (s *Store) EnqueueWebPrompt(key string, p Prompt) (seq uint64, err error) {
	if p.Origin == nil || p.Origin.Kind != OriginWeb {
		return 0, errors.New("enqueue web prompt: a prompt without the web's origin")
	}
	err = s.update(func(tx *txn) error {
		seq, err = tx.enqueuePrompt(key, p)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("enqueue web prompt: %w", err)
	}
	return seq, nil
}
