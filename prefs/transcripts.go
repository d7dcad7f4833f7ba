package prefs

import (
	"fmt"
)

// Transcripts: each conversation's last turns, one record a turn, in the
// order they ended. The records are the caller's (package transcript
// encodes and reads them); the store keeps them bounded per conversation:
// appending drops the oldest beyond a count and a total size, in the same
// transaction.

// TranscriptLimits bound one conversation's transcript: at most Turns
// records and Bytes bytes of them; the newest record is always kept.
type TranscriptLimits struct {
	Turns, Bytes int
}

// AppendTranscript adds rec as the newest turn of key's transcript and
// drops the oldest ones beyond lim, in one transaction.
func (s *Store) AppendTranscript(key string, rec []byte, lim TranscriptLimits) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("append to the transcript: %w", err)
	}
	err := s.update(func(tx *txn) error {
		all, err := tx.bucket(bucketTranscripts)
		if err != nil {
			return err
		}
		b, err := all.CreateBucketIfNotExists([]byte(key))
		if err != nil {
			return err
		}
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		if err := b.Put(u64(seq), rec); err != nil {
			return err
		}
		// Newest first: keep what fits, then drop the rest.
		n, size := 0, 0
		var drop [][]byte
		c := b.Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			n, size = n+1, size+len(v)
			if n > 1 && (n > lim.Turns || size > lim.Bytes) {
				drop = append(drop, k)
			}
		}
		for _, k := range drop {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("append to the transcript of %q: %w", key, err)
	}
	return nil
}

// Transcript is key's transcript, oldest turn first (nil when it has none).
func (s *Store) Transcript(key string) ([][]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, fmt.Errorf("read the transcript: %w", err)
	}
	var out [][]byte
	err := s.view(func(tx *txn) error {
		all, err := tx.bucket(bucketTranscripts)
		if err != nil {
			return err
		}
		b := all.Bucket([]byte(key))
		if b == nil {
			return nil
		}
		return b.ForEach(func(_, v []byte) error {
			out = append(out, append([]byte(nil), v...)) // v lives only as long as the transaction
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read the transcript of %q: %w", key, err)
	}
	return out, nil
}
