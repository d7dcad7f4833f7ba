package tgtest

import (
	"encoding/json"
	"testing"
	"testing/synctest"
)

func TestPrivateTopics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plain := New(t, InMemory(), WithChats(PrivateChat(alice)))
		wantError(t, callJSON(t, plain, "createForumTopic", map[string]any{"chat_id": alice.ID, "name": "api"}), 400,
			"Bad Request: the chat is not a forum")

		s := New(t, InMemory(), WithPrivateTopics(), WithChats(PrivateChat(alice)))
		var me struct {
			HasTopicsEnabled bool `json:"has_topics_enabled"`
		}
		if err := json.Unmarshal(mustOK(t, callJSON(t, s, "getMe", nil)), &me); err != nil || !me.HasTopicsEnabled {
			t.Errorf("getMe: has_topics_enabled = %v (%v)", me.HasTopicsEnabled, err)
		}
		wantError(t, callJSON(t, s, "createForumTopic", map[string]any{"chat_id": alice.ID, "name": ""}), 400, "Bad Request: TOPIC_NAME_INVALID")
		var topic struct {
			ID   int    `json:"message_thread_id"`
			Name string `json:"name"`
		}
		if err := json.Unmarshal(mustOK(t, callJSON(t, s, "createForumTopic", map[string]any{"chat_id": alice.ID, "name": "api"})), &topic); err != nil ||
			topic.ID == 0 || topic.Name != "api" {
			t.Fatalf("topic %+v (%v)", topic, err)
		}
		mustOK(t, callJSON(t, s, "sendMessage", map[string]any{"chat_id": alice.ID, "message_thread_id": topic.ID, "text": "hi"}))
		if m := s.Messages(alice.ID); len(m) != 2 || m[1].ThreadID != topic.ID || !m[1].IsTopic {
			t.Errorf("messages %+v", m)
		}
		if got := s.Topics(alice.ID); got[topic.ID] != "api" {
			t.Errorf("topics %v", got)
		}
	})
}
