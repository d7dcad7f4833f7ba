package tgtest

import (
	"maps"
	"unicode/utf8"
)

// Topics in private chats (Bot API 9.3/9.4): with forum topic mode enabled
// for the bot (in @BotFather), getMe says has_topics_enabled, messages in a
// private chat's topics carry message_thread_id and is_topic_message like
// a forum's, and createForumTopic opens a topic there. Without it the
// private chat is one conversation and createForumTopic is refused as for
// a group that is not a forum.

// WithPrivateTopics enables forum topic mode for the bot in private chats.
func WithPrivateTopics() Option { return func(s *Server) { s.privateTopics = true } }

// SetPrivateTopics turns forum topic mode for the bot in private chats on
// or off, as WithPrivateTopics does at the start (for a harness that made
// the server already); chats seen before keep what they had.
func (s *Server) SetPrivateTopics(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.privateTopics = on
}

// topicIconColor is the first of the colours Telegram allows for a topic icon.
const topicIconColor = 7322096

// topicsOn says whether a chat has topics: a forum, or a private chat of
// a bot with topics enabled.
func (s *Server) topicsOn(cs *chatState) bool {
	return cs.chat.IsForum || (cs.chat.Type == "private" && s.privateTopics)
}

// createForumTopic opens a topic: its id is that of its creation message,
// as Telegram numbers them.
func (s *Server) createForumTopic(c Call) (any, *apiError) {
	cs, e := s.resolveChat(c)
	if e != nil {
		return nil, e
	}
	if !s.topicsOn(cs) {
		return nil, badRequest("the chat is not a forum")
	}
	name := c.Params["name"]
	if n := utf8.RuneCountInString(name); n == 0 || n > 128 {
		return nil, badRequest("TOPIC_NAME_INVALID")
	}
	cs.lastID++
	id := cs.lastID
	cs.topics[id] = name
	cs.msgs[id] = &storedMsg{id: id, fromBot: true, threadID: id, isTopic: true, date: s.now(), topicCreated: name}
	return map[string]any{"message_thread_id": id, "name": name, "icon_color": topicIconColor}, nil
}

// Topics are the topics opened in a chat (by createForumTopic or AddTopic): thread id → name.
func (s *Server) Topics(chatID int64) map[int]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cs, ok := s.chats[chatID]; ok {
		return maps.Clone(cs.topics)
	}
	return nil
}
