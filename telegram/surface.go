package telegram

import (
	"context"
	"sync"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/chat"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/view"
)

// surface is how the conversation core shows Telegram's conversations
// (chat.Surface): its notes as messages, a queued message's notice, a
// turn's messages (tgTurn, turnview.go).
type surface struct {
	b *Bot

	mu sync.Mutex
	// notes are the "Queued" notices of queued prompts, by chat and message
	// id: the turn that runs the prompt makes its progress message of it
	// (notice.go), one message fewer.
	notes map[place]map[int]*notice
}

func newSurface(b *Bot) *surface { return &surface{b: b, notes: map[place]map[int]*notice{}} }

// Note tells the chat what the core says, in view's words.
func (s *surface) Note(pl place, replyTo int, n chat.Note) {
	b := s.b
	if n, ok := n.(chat.NoteBilling); ok {
		b.subs.sawBilling(pl, replyTo, n.Billing, n.Origin)
		return
	}
	if n, ok := n.(chat.NoteSteered); ok {
		s.steered(pl, replyTo, n.Stage)
		return
	}
	text, ok := view.NoteText(n, time.Now())
	if !ok {
		b.log.Warn("a note the bot cannot say", "chat_id", pl.ChatID)
		return
	}
	b.api.notify(pl, replyTo, text)
}

// Queued tells a message it waits: a typed one gets a notice that its
// turn's progress message may take over, a run no one typed a note.
func (s *surface) Queued(pl place, msgID int, origin *prefs.Origin, ahead int) {
	b := s.b
	if origin != nil {
		b.api.notify(pl, 0, view.QueuedRunNote(origin.Label, ahead))
		return
	}
	n := b.api.newNotice(pl, msgID)
	n.ahead = ahead
	s.mu.Lock()
	if s.notes[pl] == nil {
		s.notes[pl] = map[int]*notice{}
	}
	s.notes[pl][msgID] = n
	s.mu.Unlock()
	// Only if it still waits ProgressDelay later: a message in a turn's last
	// moments costs no message (its answer would wait for the chat's window).
	time.AfterFunc(b.cfg.ProgressDelay, func() {
		s.mu.Lock()
		n.queued = s.notes[pl][msgID] == n // not run yet, nor dropped
		s.mu.Unlock()
		if n.queued {
			if b.core.CanSteer(SessionKey(pl.ChatID, pl.Thread)) { // not under the core's lock, Queued is
				n.offer(view.SteerKeyboard(msgID))
			}
			n.start(n.queuedText())
		}
	})
}

// QueueDropped forgets the notices of a chat's dropped queue.
func (s *surface) QueueDropped(pl place) {
	s.mu.Lock()
	delete(s.notes, pl)
	s.mu.Unlock()
}

// takeNote is the queued notice of the prompt of message msgID, if one
// was sent; one not sent yet never will be.
func (s *surface) takeNote(pl place, msgID int) *notice {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.notes[pl][msgID]
	delete(s.notes[pl], msgID)
	if len(s.notes[pl]) == 0 {
		delete(s.notes, pl)
	}
	if n == nil || !n.queued {
		return nil
	}
	return n
}

// SessionStarted refreshes the chat's command menu: the new process's
// directory may hold other commands.
func (s *surface) SessionStarted(ctx context.Context, pl place, machine, dir string) {
	s.b.refreshMenu(ctx, pl.ChatID, chat.Dir{Machine: machine, Path: dir})
}

// PromptResolved shows a request's outcome on its prompt (a timeout, a
// cancel; a press shows it itself, with who pressed).
func (s *surface) PromptResolved(r approvals.Resolution) { s.b.onResolved(r) }
