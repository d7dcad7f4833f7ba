package web

import (
	"context"
	"slices"

	"github.com/untether/untether/chat"
)

// Who may use which conversation: a user their own private chat (and its
// topics), and a group of Config.Groups only while they are in it, as
// Telegram lets only a group's members write there. Every request asks
// again (Members may keep an answer a short while); any other chat is
// "not found", like one that does not exist.

// Members says whether a user is in a group (Telegram's getChatMember:
// telegram/weblink.Members). An error counts as "not in it": the group is
// neither shown nor usable until Telegram answers.
type Members interface {
	IsMember(ctx context.Context, chatID, userID int64) (bool, error)
}

// mayUse says whether userID may see and act on the conversation at p.
func (s *Server) mayUse(ctx context.Context, userID int64, p chat.Place) bool {
	if p.ChatID == userID {
		return true
	}
	if !slices.Contains(s.cfg.Groups, p.ChatID) || s.cfg.Members == nil {
		return false
	}
	in, err := s.cfg.Members.IsMember(ctx, p.ChatID, userID)
	if err != nil {
		s.cfg.Log.Warn("web: could not learn whether a user is in a group; not shown", "chat_id", p.ChatID, "user_id", userID, "err", err)
		return false
	}
	return in
}

// place is where key lives, if userID may use it: what the hub saw, else
// their own private chat or a listed group by its key.
func (s *Server) place(ctx context.Context, userID int64, key string) (chat.Place, bool) {
	p, ok := chat.Place{}, false
	if v, seen := s.hub.view(key); seen {
		p, ok = v.Place, true
	} else if key == s.cfg.Key(userID, 0) {
		p, ok = chat.Place{ChatID: userID}, true
	} else if i := slices.IndexFunc(s.cfg.Groups, func(g int64) bool { return key == s.cfg.Key(g, 0) }); i >= 0 {
		p, ok = chat.Place{ChatID: s.cfg.Groups[i]}, true
	}
	return p, ok && s.mayUse(ctx, userID, p)
}
