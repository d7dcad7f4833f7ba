package chat

// CancelIf cancels the conversation's running turn, like Cancel, but only
// when ok, given the turn's surface, says it is the turn meant: a stop
// pressed on a frontend's view of one turn (Telegram's draft) must not
// stop a later one. ok runs before the cancel and never after the turn
// answered. It never waits.
func (c *Core) CancelIf(key string, ok func(TurnSurface) bool) bool {
	s := c.existing(key)
	return s != nil && s.cancelIf(ok)
}
