package telegram

import (
	"github.com/untether/untether/chat"
	"github.com/untether/untether/telegram/view"
)

// steered shows, in a queued message's "Queued" notice, what became of it
// once sent into the running turn (its button goes). One taken into the
// turn no longer waits: its notice is sent now if it was not yet, and no
// later turn takes it over.
func (s *surface) steered(pl place, msgID int, stage chat.SteerStage) {
	text := view.SteerNote(stage)
	s.mu.Lock()
	n := s.notes[pl][msgID]
	start := false
	var behind []*notice
	if n != nil && stage == chat.SteerJoined {
		delete(s.notes[pl], msgID)
		start = !n.queued // not sent, and its timer no longer will
		behind = s.behind(pl, msgID)
	}
	s.mu.Unlock()
	for _, b := range behind {
		b.oneAheadFewer()
	}
	if n == nil {
		s.b.api.notify(pl, msgID, text) // its notice was dropped: a note of its own
		return
	}
	n.set(text)
	if start {
		n.start(text)
	}
}

// offer gives a notice not yet told its outcome buttons to send with.
func (n *notice) offer(kb view.Keyboard) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.text == "" {
		n.kb = kb
	}
}
