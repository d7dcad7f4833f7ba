package chat

import (
	"strings"
	"time"

	"github.com/untether/untether/prefs"
)

// albumMax bounds the wait for an album's items, however they trickle in.
const albumMax = 10 * time.Second

// gatherAlbum waits until no item of first's album has arrived for
// AlbumWait, then takes every queued item of it out of the queue and merges
// them into first: their files in order, their captions joined. It returns
// the sequence numbers of the merged prompts, done when the turn begins.
func (a *session) gatherAlbum(first prefs.QueuedPrompt) (prefs.QueuedPrompt, []uint64) {
	deadline := time.Now().Add(albumMax)
	quiet := time.NewTimer(a.c.cfg.AlbumWait)
	defer quiet.Stop()
wait:
	for time.Now().Before(deadline) {
		select {
		case <-a.wake: // something arrived: wait a full quiet period again
			quiet.Reset(a.c.cfg.AlbumWait)
		case <-quiet.C:
			break wait
		case <-a.quit:
			break wait
		}
	}
	signal(a.wake) // a wake consumed here may have been for other work
	a.mu.Lock()
	defer a.mu.Unlock()
	var seqs []uint64
	texts := []string{first.Text}
	rest := a.queue[:0]
	for _, qp := range a.queue {
		if qp.Album != first.Album {
			rest = append(rest, qp)
			continue
		}
		first.Files = append(first.Files, qp.Files...)
		texts = append(texts, qp.Text)
		seqs = append(seqs, qp.Seq)
	}
	a.queue = rest
	if a.turn != nil {
		a.turn.setQueued(len(a.queue))
	}
	var kept []string
	for _, t := range texts {
		if t = strings.TrimSpace(t); t != "" {
			kept = append(kept, t)
		}
	}
	first.Text = strings.Join(kept, "\n\n")
	return first, seqs
}
