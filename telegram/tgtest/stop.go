package tgtest

// Stopping a draft (Bot API 10.3): a draft sent with can_stop shows a stop
// button; pressing it ends the draft on the user's screen (unless it was
// sent with keep_on_stop, then it stays like any draft until its TTL or the
// bot's next message) and sends the bot a stopped_message_generation
// update naming the chat, the topic and the draft_id. The update carries no
// user: a draft goes to a private chat only, whose id is its user's.
//
// Checks the fake makes: can_stop and keep_on_stop are booleans, and
// keep_on_stop asks for can_stop (a draft nobody can stop has nothing to
// keep: assumed, not measured against Telegram). The wording of the
// refusals is the fake's own. Whether Telegram sends the update without
// it being named in allowed_updates is not documented: the fake sends it
// by default, like message and callback_query.

// stopParams reads a draft's can_stop and keep_on_stop.
func stopParams(c Call) (stop, keep bool, e *apiError) {
	for _, name := range []string{"can_stop", "keep_on_stop"} {
		if v, ok := c.Params[name]; ok && v != "true" && v != "false" {
			return false, false, badRequest("%s must be a Boolean", name)
		}
	}
	stop, keep = c.Bool("can_stop"), c.Bool("keep_on_stop")
	if keep && !stop {
		return false, false, badRequest("keep_on_stop requires can_stop")
	}
	return stop, keep, nil
}

// StopDraft is the user pressing stop on the draft they see in a chat's
// topic: it must be live and sent with can_stop, else there is no button
// and nothing happens (ok false). It returns the update's id (0 when the
// bot's allowed_updates leave it out: Telegram then sends nothing).
func (s *Server) StopDraft(chatID int64, threadID int) (updateID int64, ok bool) {
	s.tb.Helper()
	d, live := s.LiveDraft(chatID, threadID)
	if !live || !d.CanStop {
		return 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.chats[chatID]
	d.At = s.now()
	cs.stops = append(cs.stops, d)
	payload := map[string]any{"chat": cs.chat, "draft_id": d.ID}
	if threadID != 0 {
		payload["message_thread_id"] = threadID
	}
	return s.addUpdateLocked("stopped_message_generation", payload), true
}

// Stopped lists the drafts the user stopped in a chat, oldest first.
func (s *Server) Stopped(chatID int64) []Draft {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cs, ok := s.chats[chatID]; ok {
		return append([]Draft(nil), cs.stops...)
	}
	return nil
}

// stoppedGone says whether the user stopped d since it came and it was
// not to be kept: it no longer shows.
func (s *Server) stoppedGone(cs *chatState, d Draft) bool {
	for _, st := range cs.stops {
		if st.ThreadID == d.ThreadID && st.ID == d.ID && !st.At.Before(d.At) {
			return !d.KeepOnStop
		}
	}
	return false
}
