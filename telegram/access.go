package telegram

import "github.com/untether/untether/prefs"

// Who may use the bot: one rule for each question, asked where a message
// arrives (router), a prompt is about to run (mayRun), a press arrives
// (handlePress) and a held Claude is found after a restart (heldcheck.go).
// The allowlist may have changed between two of those (a restart with a
// new config), so each asks again.

// allowlist is the owner's allowed_user_ids and allowed_chat_ids.
type allowlist struct {
	anyUser bool // AllowAnyUser: tests and the load command only
	users   map[int64]bool
	chats   map[int64]bool
}

func newAllowlist(cfg Config) allowlist {
	return allowlist{anyUser: cfg.AllowAnyUser, users: set(cfg.AllowedUsers), chats: set(cfg.AllowedChats)}
}

// user says whether a user may use the bot.
func (l allowlist) user(id int64) bool { return l.anyUser || l.users[id] }

// chat says whether chatID passes allowed_chat_ids: a group must be
// listed when the list is not empty; a private chat always passes (its
// user is checked as any sender).
func (l allowlist) chat(chatID int64) bool {
	return !isGroup(chatID) || len(l.chats) == 0 || l.chats[chatID]
}

// Turn is the check a turn meets before it runs: its chat, and the user
// it runs for. A run the owner set up in the config (config) has no user:
// its chat must be allowed by itself (origin). A turn without a user
// otherwise cannot be checked and is refused.
func (l allowlist) Turn(chatID, userID int64, config bool) (chatOK, userOK bool) {
	if config {
		return l.origin(chatID)
	}
	return l.chat(chatID), userID != 0 && l.user(userID)
}

// origin is Turn for a run the owner set up in the config (no user owns
// it): its chat must be allowed by itself, a group by allowed_chat_ids, a
// private chat as its user.
func (l allowlist) origin(chatID int64) (chatOK, userOK bool) {
	if isGroup(chatID) {
		return l.chats[chatID], true
	}
	return true, l.user(chatID)
}

// Held is Turn for a held Claude a restarted bot found. The turn it runs
// is checked as its prompt was before it ran: a held turn has no user only
// when the owner's config started it (a trigger, a schedule of the
// config), for a typed prompt and a user's schedule always have one.
// Between turns its chat is checked, a private chat as its user.
func (l allowlist) Held(rec prefs.HeldSession) (chatOK, userOK bool) {
	switch {
	case rec.Turn != nil:
		return l.Turn(rec.ChatID, rec.Turn.UserID, rec.Turn.UserID == 0)
	case isGroup(rec.ChatID):
		return l.chat(rec.ChatID), true
	}
	return l.Turn(rec.ChatID, rec.ChatID, false)
}
