package telegram

import "github.com/untether/untether/prefs"

// Who may use the bot: one rule for each question, asked where a message
// arrives (router), a prompt is about to run (mayRun), a press arrives
// (handlePress) and a held Claude is found after a restart (heldAccess).
// The allowlist may have changed between two of those (a restart with a
// new config), so each asks again.

// chatAllowed says whether chatID passes allowed_chat_ids: a group must be
// listed when the list is not empty; a private chat always passes (its
// user is checked as any sender).
func (b *Bot) chatAllowed(chatID int64) bool {
	return !isGroup(chatID) || len(b.allowedChats) == 0 || b.allowedChats[chatID]
}

// access is the check a turn meets before it runs: its chat, and the user
// it runs for. A run the owner set up in the config (config) has no user:
// its chat must be allowed by itself (originAllowed). A turn without a
// user otherwise cannot be checked and is refused.
func (b *Bot) access(chatID, userID int64, config bool) (chatOK, userOK bool) {
	if config {
		return b.originAllowed(chatID)
	}
	return b.chatAllowed(chatID), userID != 0 && b.userAllowed(userID)
}

// originAllowed is access for a run the owner set up in the config (no
// user owns it): its chat must be allowed by itself, a group by
// allowed_chat_ids, a private chat as its user.
func (b *Bot) originAllowed(chatID int64) (chatOK, userOK bool) {
	if isGroup(chatID) {
		return b.allowedChats[chatID], true
	}
	return true, b.userAllowed(chatID)
}

// heldAccess is access for a held Claude a restarted bot found. The turn
// it runs is checked as its prompt was before it ran: a held turn has no
// user only when the owner's config started it (a trigger, a schedule of
// the config), for a typed prompt and a user's schedule always have one.
// Between turns its chat is checked, a private chat as its user.
func (b *Bot) heldAccess(rec prefs.HeldSession) (chatOK, userOK bool) {
	switch {
	case rec.Turn != nil:
		return b.access(rec.ChatID, rec.Turn.UserID, rec.Turn.UserID == 0)
	case isGroup(rec.ChatID):
		return b.chatAllowed(rec.ChatID), true
	}
	return b.access(rec.ChatID, rec.ChatID, false)
}
