package prefs

// SwitchEngine moves key from engine from to engine to, in one write: the
// current session (from's) goes into the history and is parked under
// from; the session parked under to, if the history still has it, becomes
// current again (resumed is its id), else the next message starts a fresh
// one. A session belongs to the engine that made it: one engine cannot
// resume another's.
func (s *Store) SwitchEngine(key, from, to string) (resumed string, err error) {
	err = s.update(func(tx *txn) error {
		p, err := tx.prefs(key)
		if err != nil {
			return err
		}
		rec, _, err := tx.session(key)
		if err != nil {
			return err
		}
		now := s.opts.now()
		if p.Parked == nil {
			p.Parked = map[string]string{}
		}
		if rec.SessionID != "" {
			p.Parked[from] = rec.SessionID
		}
		rec.archive(now)
		if id := p.Parked[to]; id != "" {
			delete(p.Parked, to)
			for _, past := range rec.History {
				if past.ID == id {
					rec.History = rec.withoutID(id)
					rec.SessionID, rec.Title, rec.WorkDir, rec.Started = id, past.Title, past.WorkDir, past.Started
					resumed = id
					break
				}
			}
		}
		rec.Updated = now
		p.Engine = to
		if err := tx.putSession(key, rec); err != nil {
			return err
		}
		b, err := tx.bucket(bucketPrefs)
		if err != nil {
			return err
		}
		return putJSON(b, []byte(key), p)
	})
	return resumed, err
}
