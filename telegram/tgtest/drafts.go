package tgtest

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// DraftTTL is how long a client shows a live draft after receiving it
// (message_typing_draft_ttl: "a temporary 30-second preview"), unless a
// message of the bot in the same chat and topic replaces it first.
const DraftTTL = 30 * time.Second

// Draft is one accepted sendMessageDraft: what the user saw from that moment.
type Draft struct {
	ChatID   int64
	ThreadID int
	ID       int64 // draft_id; drafts with the same id animate into each other
	Text     string
	Entities []Entity
	Source   string // the text parameter as sent (a rich draft: its HTML)
	Rich     bool   // sent with sendRichMessageDraft
	// CanStop: the client shows a stop button on it (Bot API 10.3);
	// KeepOnStop: a stopped draft stays on the screen (stop.go).
	CanStop, KeepOnStop bool
	At                  time.Time
	after               int // the chat's last message id when it came: a later message of the bot replaces it
}

// sendMessageDraft checks what the Bot API checks (API 9.5): a private chat,
// a non-zero integer draft_id, a text of at most 4096 characters after
// entity parsing; an empty text is allowed and shows "Thinking…". Telegram
// implements a draft as a typing action (messages.setTyping with
// sendMessageTextDraftAction), not a message: nothing is stored in the chat.
func (s *Server) sendMessageDraft(c Call) (any, *apiError) {
	cs, e := s.resolveChat(c)
	if e != nil {
		return nil, e
	}
	if cs.chat.Type != "private" {
		// What Telegram answers for a draft to a group (measured by bot
		// authors; drafts go to users only).
		return nil, badRequest("TEXTDRAFT_PEER_INVALID")
	}
	id, err := strconv.ParseInt(strings.TrimSpace(c.Params["draft_id"]), 10, 64)
	if err != nil || id == 0 {
		return nil, badRequest("draft_id must be a non-zero integer")
	}
	ct, e := s.parseRich(c.Params["text"], c.Params["parse_mode"], c.Params["entities"], MaxTextLen, "TEXT_TOO_LONG")
	if e != nil {
		return nil, e
	}
	stop, keep, e := stopParams(c)
	if e != nil {
		return nil, e
	}
	cs.drafts = append(cs.drafts, Draft{ChatID: cs.chat.ID, ThreadID: int(c.Int64("message_thread_id")), ID: id,
		Text: ct.text, Entities: ct.entities, Source: ct.source, CanStop: stop, KeepOnStop: keep, At: s.now(), after: cs.lastID})
	return true, nil
}

// Drafts returns every draft accepted for a chat, oldest first.
func (s *Server) Drafts(chatID int64) []Draft {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cs, ok := s.chats[chatID]; ok {
		return slices.Clone(cs.drafts)
	}
	return nil
}

// LiveDraft is the draft the user sees now in a chat's topic (0: none),
// like a client shows it: the newest one, until DraftTTL after it arrived or
// until the bot sends a message in that chat and topic, whichever is first.
func (s *Server) LiveDraft(chatID int64, threadID int) (Draft, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs, ok := s.chats[chatID]
	if !ok {
		return Draft{}, false
	}
	var last *Draft
	for i := range cs.drafts {
		if cs.drafts[i].ThreadID == threadID {
			last = &cs.drafts[i]
		}
	}
	if last == nil || !s.now().Before(last.At.Add(DraftTTL)) || s.stoppedGone(cs, *last) {
		return Draft{}, false
	}
	for _, m := range cs.msgs {
		if m.fromBot && m.threadID == threadID && m.id > last.after {
			return Draft{}, false
		}
	}
	return *last, true
}
