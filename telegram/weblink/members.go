package weblink

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// MemberTTL is how long an answer of getChatMember is kept: a user who
// leaves a group (or is banned) loses it on the web view within a minute.
const MemberTTL = time.Minute

// maxMemberAnswers bounds the kept answers (groups × signed-in users).
const maxMemberAnswers = 4096

// Members says whether a user is in a group, as the web view asks before
// it shows or acts on the group (web.Members): Telegram lets only members
// write in a group, so only members see it on the web. It asks
// getChatMember and keeps each answer for MemberTTL; an error is not kept
// and says "not a member" (the caller fails closed).
type Members struct {
	API API
	Now func() time.Time // nil: time.Now

	mu    sync.Mutex
	known map[[2]int64]memberAnswer
}

type memberAnswer struct {
	in    bool
	until time.Time
}

// IsMember says whether userID is in chatID now (as of at most MemberTTL ago).
func (m *Members) IsMember(ctx context.Context, chatID, userID int64) (bool, error) {
	now := m.now()
	k := [2]int64{chatID, userID}
	m.mu.Lock()
	a, ok := m.known[k]
	m.mu.Unlock()
	if ok && now.Before(a.until) {
		return a.in, nil
	}
	var cm struct {
		Status   string `json:"status"`
		IsMember bool   `json:"is_member"`
	}
	q := url.Values{"chat_id": {strconv.FormatInt(chatID, 10)}, "user_id": {strconv.FormatInt(userID, 10)}}
	if err := m.API.get(ctx, "getChatMember", q, &cm); err != nil {
		return false, fmt.Errorf("is user %d in chat %d: %w", userID, chatID, err)
	}
	in := memberStatus(cm.Status, cm.IsMember)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.known == nil || len(m.known) >= maxMemberAnswers {
		m.known = map[[2]int64]memberAnswer{} // all expire within a minute anyway
	}
	m.known[k] = memberAnswer{in: in, until: now.Add(MemberTTL)}
	return in, nil
}

// memberStatus says whether a ChatMember's status is one of a user in the
// chat: the owner, an administrator, a member, or a restricted user who is
// a member; not one who left or was banned.
func memberStatus(status string, isMember bool) bool {
	switch status {
	case "creator", "administrator", "member":
		return true
	case "restricted":
		return isMember
	}
	return false
}

func (m *Members) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}
