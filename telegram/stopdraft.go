package telegram

// StopDraft implements control.Stoppable: draftID is this turn's draft
// (drafts still on), and the turn ends keeping what was written.
func (t *tgTurn) StopDraft(draftID int64) bool {
	s := t.live
	if s == nil || s.draftID != draftID {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.drafts {
		return false
	}
	t.stopped.Store(true)
	return true
}

// written is the text the draft showed last (Markdown).
func (s *streamer) written() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.text
}
