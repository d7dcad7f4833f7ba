package tgtest

import (
	"strconv"
	"strings"
)

// Chat members as getChatMember answers them. The fake knows a user is in
// a group when a test says so (SetMember) or when the user wrote there
// (SendMessage and the like: Telegram lets only members write). Everyone
// else, like a user who never joined, is "left".

// Member statuses, as the Bot API spells them.
const (
	StatusCreator       = "creator"
	StatusAdministrator = "administrator"
	StatusMember        = "member"
	StatusRestricted    = "restricted"
	StatusLeft          = "left"
	StatusKicked        = "kicked"
)

// membership is one user's standing in one chat.
type membership struct {
	user     User
	status   string
	isMember bool // restricted only: whether the restricted user is in the chat
	set      bool // by SetMember, not by writing
}

// SetMember gives u a status in chat: one of the Status constants.
// isMember matters for StatusRestricted only (a restricted user may or
// may not be in the chat, as Telegram's is_member says).
func (s *Server) SetMember(chat Chat, u User, status string, isMember bool) {
	switch status {
	case StatusCreator, StatusAdministrator, StatusMember, StatusRestricted, StatusLeft, StatusKicked:
	default:
		s.tb.Fatalf("tgtest: SetMember: %q is no chat member status", status)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.chatLocked(chat)
	cs.memberLocked()[u.ID] = membership{user: u, status: status, isMember: isMember, set: true}
	s.notifyLocked()
}

func (cs *chatState) memberLocked() map[int64]membership {
	if cs.members == nil {
		cs.members = map[int64]membership{}
	}
	return cs.members
}

// wroteLocked notes that from wrote in cs: a member from then on, unless a
// test said otherwise (then the test is wrong: a user who left or was
// banned cannot write there).
func (s *Server) wroteLocked(cs *chatState, from User) {
	if cs.chat.Type == "private" || from.ID == 0 {
		return
	}
	m, ok := cs.memberLocked()[from.ID]
	if ok && m.set && !m.in() {
		s.tb.Errorf("tgtest: user %d is %s in chat %d and cannot write there", from.ID, m.status, cs.chat.ID)
		return
	}
	if !ok {
		cs.members[from.ID] = membership{user: from, status: StatusMember}
	}
}

// in says whether the status is one of a member of the chat.
func (m membership) in() bool {
	switch m.status {
	case StatusCreator, StatusAdministrator, StatusMember:
		return true
	case StatusRestricted:
		return m.isMember
	}
	return false
}

// knownUserLocked is what the fake knows of userID from any chat, else
// only the id.
func (s *Server) knownUserLocked(userID int64) User {
	if userID == s.bot.ID {
		return s.bot
	}
	for _, cs := range s.chats {
		if m, ok := cs.members[userID]; ok {
			return m.user
		}
		for _, msg := range cs.msgs {
			if !msg.fromBot && msg.from.ID == userID {
				return msg.from
			}
		}
	}
	return User{ID: userID}
}

// getChatMember answers a ChatMember: the fields of its status that the
// Bot API always sends. Its checks come in Telegram's order: chat_id
// present, then user_id, then the chat.
func (s *Server) getChatMember(c Call) (any, *apiError) {
	if strings.TrimSpace(c.Param("chat_id")) == "" {
		return nil, badRequest("chat_id is empty")
	}
	userID, err := strconv.ParseInt(strings.TrimSpace(c.Param("user_id")), 10, 64)
	if err != nil || userID <= 0 {
		return nil, badRequest("invalid user_id specified")
	}
	cs, e := s.resolveChat(c)
	if e != nil {
		return nil, e
	}
	m, ok := cs.members[userID]
	switch {
	case ok:
	case userID == s.bot.ID, cs.chat.Type == "private" && userID == cs.chat.ID:
		m = membership{user: s.knownUserLocked(userID), status: StatusMember}
	default:
		m = membership{user: s.knownUserLocked(userID), status: StatusLeft}
	}
	out := map[string]any{"user": m.user, "status": m.status}
	switch m.status {
	case StatusCreator:
		out["is_anonymous"] = false
	case StatusAdministrator:
		out["can_be_edited"], out["is_anonymous"], out["can_manage_chat"] = false, false, true
	case StatusRestricted:
		out["is_member"], out["until_date"], out["can_send_messages"] = m.isMember, 0, false
	case StatusKicked:
		out["until_date"] = 0
	}
	return out, nil
}
