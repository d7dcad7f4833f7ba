package tgtest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

const notModified = "Bad Request: message is not modified: specified new message content and reply markup are " +
	"exactly the same as a content and reply markup of the current message"

func TestSendMessageErrors(t *testing.T) {
	s := New(t, WithChats(PrivateChat(alice)))
	id := alice.ID
	tests := []struct {
		name   string
		params map[string]any
		desc   string
	}{
		{"no chat", map[string]any{"text": "x"}, "Bad Request: chat_id is empty"},
		{"unknown chat", map[string]any{"chat_id": 555, "text": "x"}, "Bad Request: chat not found"},
		{"empty text", map[string]any{"chat_id": id, "text": ""}, "Bad Request: message text is empty"},
		{"blank text", map[string]any{"chat_id": id, "text": " \n\t"}, "Bad Request: message text is empty"},
		{"empty after parsing", map[string]any{"chat_id": id, "text": "<b> </b>", "parse_mode": "HTML"}, "Bad Request: message text is empty"},
		{"too long", map[string]any{"chat_id": id, "text": strings.Repeat("x", 4097)}, "Bad Request: message is too long"},
		{"too long in UTF-16", map[string]any{"chat_id": id, "text": strings.Repeat("😀", 2049)}, "Bad Request: message is too long"},
		{"bad HTML", map[string]any{"chat_id": id, "text": "<b>x", "parse_mode": "HTML"},
			`Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`},
		{"bad parse mode", map[string]any{"chat_id": id, "text": "x", "parse_mode": "BBCode"}, "Bad Request: unsupported parse_mode"},
		{"reply to nothing", map[string]any{"chat_id": id, "text": "x", "reply_parameters": map[string]any{"message_id": 99}},
			"Bad Request: message to be replied not found"},
		{"text button", map[string]any{"chat_id": id, "text": "x", "reply_markup": keyboardOf([]Button{{Text: "t"}})},
			"Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"},
		{"long callback data", map[string]any{"chat_id": id, "text": "x",
			"reply_markup": keyboardOf([]Button{{Text: "t", CallbackData: strings.Repeat("d", 65)}})}, "Bad Request: BUTTON_DATA_INVALID"},
		{"unknown button style", map[string]any{"chat_id": id, "text": "x",
			"reply_markup": keyboardOf([]Button{{Text: "t", CallbackData: "d", Style: "green"}})},
			`Bad Request: can't parse inline keyboard button: style must be one of "danger", "success", "primary"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, callJSON(t, s, "sendMessage", tt.params), 400, tt.desc)
		})
	}
	if msgs := s.Messages(id); len(msgs) != 0 {
		t.Fatalf("refused sends stored %+v", msgs)
	}
}

func TestLengthLimitCountsVisibleUTF16(t *testing.T) {
	s := New(t, WithChats(PrivateChat(alice)))
	send(t, s, alice.ID, strings.Repeat("😀", 2048), nil)
	send(t, s, alice.ID, "<b>"+strings.Repeat("&amp;", 4096)+"</b>", map[string]any{"parse_mode": "HTML"})
	send(t, s, alice.ID, strings.Repeat("x", 4096)+"\n\n", nil) // trailing whitespace is trimmed first
	if n := len(s.Messages(alice.ID)); n != 3 {
		t.Fatalf("%d messages stored", n)
	}
}

func TestEntitiesPastTheLimitAreIgnored(t *testing.T) {
	s := New(t, WithChats(PrivateChat(alice)))
	var b strings.Builder
	for i := range MaxEntities + 10 {
		fmt.Fprintf(&b, "<i>%d</i> ", i)
	}
	m := send(t, s, alice.ID, b.String(), map[string]any{"parse_mode": "HTML"})
	got, _ := s.Message(alice.ID, m.MessageID)
	if len(got.Entities) != MaxEntities {
		t.Fatalf("%d entities kept, want %d", len(got.Entities), MaxEntities)
	}
	// The first ones are kept: the last kept one formats "99".
	last := got.Entities[MaxEntities-1]
	if u := utf16.Encode([]rune(got.Text)); string(utf16.Decode(u[last.Offset:last.Offset+last.Length])) != strconv.Itoa(MaxEntities-1) {
		t.Fatalf("last kept entity %+v", last)
	}
}

func TestSendStoresMessageState(t *testing.T) {
	s := New(t, WithChats(PrivateChat(alice)))
	first := s.SendMessage(alice, PrivateChat(alice), "question")
	kb := keyboardOf([]Button{{Text: "Yes", CallbackData: "y"}, {Text: "No", CallbackData: "n"}}, []Button{{Text: "Docs", URL: "https://example.com"}})
	m := send(t, s, alice.ID, "<b>Answer</b> &amp; more", map[string]any{
		"parse_mode": "HTML", "reply_markup": kb, "reply_parameters": map[string]any{"message_id": first},
	})
	if m.MessageID != first+1 || m.Text != "Answer & more" || m.From.ID != s.Bot().ID || m.ReplyTo == nil || m.ReplyTo.MessageID != first {
		t.Fatalf("sendMessage answered %+v", m)
	}
	got, ok := s.Message(alice.ID, m.MessageID)
	if !ok {
		t.Fatal("message not stored")
	}
	if got.Source != "<b>Answer</b> &amp; more" || got.ParseMode != "HTML" || got.ReplyTo != first ||
		len(got.Keyboard) != 2 || got.Keyboard[0][1] != (Button{Text: "No", CallbackData: "n"}) || got.Keyboard[1][0].URL == "" {
		t.Fatalf("stored %+v", got)
	}
	if !json.Valid(got.Markup) || !strings.Contains(string(m.ReplyMarkup), `"callback_data":"y"`) {
		t.Fatalf("markup %s / echoed %s", got.Markup, m.ReplyMarkup)
	}
	// The older reply_to_message_id works too.
	m2 := send(t, s, alice.ID, "again", map[string]any{"reply_to_message_id": first})
	if m2.ReplyTo == nil || m2.ReplyTo.MessageID != first {
		t.Fatalf("reply_to_message_id ignored: %+v", m2)
	}
}

func TestEditSemantics(t *testing.T) {
	s := New(t, WithChats(PrivateChat(alice)))
	kb := keyboardOf([]Button{{Text: "Stop", CallbackData: "stop"}})
	m := send(t, s, alice.ID, "working", map[string]any{"reply_markup": kb})
	edit := func(params map[string]any) answer {
		p := map[string]any{"chat_id": alice.ID, "message_id": m.MessageID}
		for k, v := range params {
			p[k] = v
		}
		return callJSON(t, s, "editMessageText", p)
	}

	wantError(t, edit(map[string]any{"text": "working", "reply_markup": kb}), 400, notModified)
	// Same text, but no reply_markup: that removes the keyboard, so it is a change.
	e := decodeMessage(t, mustOK(t, edit(map[string]any{"text": "working"})))
	if e.ReplyMarkup != nil || e.EditDate == 0 {
		t.Fatalf("edit without markup answered %+v", e)
	}
	if got, _ := s.Message(alice.ID, m.MessageID); got.Keyboard != nil || got.Edits != 1 {
		t.Fatalf("keyboard survived an edit without reply_markup: %+v", got)
	}
	wantError(t, edit(map[string]any{"text": "working"}), 400, notModified)
	// Different entities are a change even with the same visible text.
	mustOK(t, edit(map[string]any{"text": "<b>working</b>", "parse_mode": "HTML"}))
	wantError(t, edit(map[string]any{"text": "<b>working</b>", "parse_mode": "HTML"}), 400, notModified)

	wantError(t, edit(map[string]any{"text": strings.Repeat("x", 4097)}), 400, "Bad Request: MESSAGE_TOO_LONG")
	wantError(t, edit(map[string]any{"text": ""}), 400, "Bad Request: message text is empty")
	wantError(t, edit(map[string]any{"text": "a <x> b", "parse_mode": "HTML"}), 400,
		`Bad Request: can't parse entities: Unsupported start tag "x" at byte offset 2`)
	wantError(t, callJSON(t, s, "editMessageText", map[string]any{"chat_id": alice.ID, "message_id": 999, "text": "x"}),
		400, "Bad Request: message to edit not found")
	wantError(t, callJSON(t, s, "editMessageText", map[string]any{"chat_id": alice.ID, "text": "x"}),
		400, "Bad Request: message identifier is not specified")

	userMsg := s.SendMessage(alice, PrivateChat(alice), "mine")
	wantError(t, callJSON(t, s, "editMessageText", map[string]any{"chat_id": alice.ID, "message_id": userMsg, "text": "x"}),
		400, "Bad Request: message can't be edited")

	markup := func(params map[string]any) answer {
		p := map[string]any{"chat_id": alice.ID, "message_id": m.MessageID}
		for k, v := range params {
			p[k] = v
		}
		return callJSON(t, s, "editMessageReplyMarkup", p)
	}
	wantError(t, markup(nil), 400, notModified) // no keyboard now, none asked for
	mustOK(t, markup(map[string]any{"reply_markup": kb}))
	wantError(t, markup(map[string]any{"reply_markup": kb}), 400, notModified)
	mustOK(t, markup(map[string]any{"reply_markup": keyboardOf()})) // an empty keyboard removes it
	got, _ := s.Message(alice.ID, m.MessageID)
	if got.Keyboard != nil || got.Text != "working" || got.Edits != 4 {
		t.Fatalf("after markup edits: %+v", got)
	}
}

func TestDeleteMessage(t *testing.T) {
	s := New(t, WithChats(PrivateChat(alice)))
	m := send(t, s, alice.ID, "bye", nil)
	del := func() answer {
		return callJSON(t, s, "deleteMessage", map[string]any{"chat_id": alice.ID, "message_id": m.MessageID})
	}
	if string(mustOK(t, del())) != "true" {
		t.Fatal("deleteMessage must answer true")
	}
	wantError(t, del(), 400, "Bad Request: message to delete not found")
	wantError(t, callJSON(t, s, "editMessageText", map[string]any{"chat_id": alice.ID, "message_id": m.MessageID, "text": "x"}),
		400, "Bad Request: message to edit not found")
	if _, ok := s.Message(alice.ID, m.MessageID); ok || len(s.Messages(alice.ID)) != 0 {
		t.Fatal("deleted message still listed")
	}
	if d := s.Deleted(alice.ID); len(d) != 1 || d[0] != m.MessageID {
		t.Fatalf("Deleted = %v", d)
	}
	// Ids are never reused.
	if next := send(t, s, alice.ID, "next", nil); next.MessageID != m.MessageID+1 {
		t.Fatalf("next id %d", next.MessageID)
	}
}

func TestThreadsInForumAndSupergroup(t *testing.T) {
	forum := Forum(-1001, "Forum")
	sg := Supergroup(-1002, "Plain")
	s := New(t)
	s.AddChat(forum)
	s.AddTopic(forum.ID, 7, "Deploys")

	// A user message in a topic carries the topic's creation message as reply_to_message.
	uid := s.SendMessage(alice, forum, "hi @tgtest_bot", InThread(7))
	var upd struct {
		Message struct {
			MessageThreadID int  `json:"message_thread_id"`
			IsTopicMessage  bool `json:"is_topic_message"`
			ReplyTo         struct {
				MessageID         int `json:"message_id"`
				ForumTopicCreated struct {
					Name string `json:"name"`
				} `json:"forum_topic_created"`
			} `json:"reply_to_message"`
			Entities []Entity `json:"entities"`
		} `json:"message"`
	}
	full := mustOK(t, callJSON(t, s, "getUpdates", nil))
	var list []json.RawMessage
	if err := json.Unmarshal(full, &list); err != nil || len(list) != 1 {
		t.Fatalf("updates %s", full)
	}
	if err := json.Unmarshal(list[0], &upd); err != nil {
		t.Fatal(err)
	}
	um := upd.Message
	if um.MessageThreadID != 7 || !um.IsTopicMessage || um.ReplyTo.MessageID != 7 || um.ReplyTo.ForumTopicCreated.Name != "Deploys" {
		t.Fatalf("topic message %s", list[0])
	}
	if len(um.Entities) != 1 || um.Entities[0] != (Entity{Type: "mention", Offset: 3, Length: 11}) {
		t.Fatalf("entities %+v", um.Entities)
	}

	// The bot answering in the topic, and a reply without thread id landing in the replied message's topic.
	m := send(t, s, forum.ID, "ok", map[string]any{"message_thread_id": 7})
	r := send(t, s, forum.ID, "re", map[string]any{"reply_parameters": map[string]any{"message_id": uid}})
	if !m.IsTopicMessage || m.MessageThreadID != 7 || r.MessageThreadID != 7 || r.ReplyTo == nil || r.ReplyTo.MessageID != uid {
		t.Fatalf("bot topic messages %+v / %+v", m, r)
	}
	if got, _ := s.Message(forum.ID, m.MessageID); got.ThreadID != 7 || !got.IsTopic {
		t.Fatalf("stored %+v", got)
	}

	// In a plain supergroup a reply gets the reply thread's id but is no topic message.
	s.AddChat(sg)
	root := s.SendMessage(bob, sg, "root")
	rep := send(t, s, sg.ID, "answer", map[string]any{"reply_parameters": map[string]any{"message_id": root}})
	if rep.MessageThreadID != root || rep.IsTopicMessage {
		t.Fatalf("supergroup reply %+v", rep)
	}
}

func TestGetChatAndChatAction(t *testing.T) {
	grp := Group(-4001, "Team")
	s := New(t, WithChats(grp, Chat{ID: -1003, Type: "supergroup", Title: "Named", Username: "named"}))
	var info struct {
		ID    int64  `json:"id"`
		Type  string `json:"type"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal(mustOK(t, callJSON(t, s, "getChat", map[string]any{"chat_id": "@named"})), &info); err != nil {
		t.Fatal(err)
	}
	if info.ID != -1003 || info.Type != "supergroup" || info.Title != "Named" {
		t.Fatalf("getChat = %+v", info)
	}
	wantError(t, callJSON(t, s, "getChat", map[string]any{"chat_id": 42}), 400, "Bad Request: chat not found")
	mustOK(t, callJSON(t, s, "sendChatAction", map[string]any{"chat_id": grp.ID, "action": "typing"}))
	wantError(t, callJSON(t, s, "sendChatAction", map[string]any{"chat_id": grp.ID, "action": "dancing"}),
		400, "Bad Request: wrong parameter action in request")
}

func TestCommandsAndWebhook(t *testing.T) {
	s := New(t)
	cmds := []BotCommand{{Command: "cancel", Description: "Stop the turn"}, {Command: "new", Description: "Fresh session"}}
	mustOK(t, callJSON(t, s, "setMyCommands", map[string]any{"commands": cmds}))
	wantError(t, callJSON(t, s, "setMyCommands", map[string]any{"commands": []BotCommand{{Command: "Bad-Name", Description: "x"}}}),
		400, "Bad Request: BOT_COMMAND_INVALID")
	var got []BotCommand
	if err := json.Unmarshal(mustOK(t, callJSON(t, s, "getMyCommands", nil)), &got); err != nil || len(got) != 2 || got[1] != cmds[1] {
		t.Fatalf("getMyCommands = %+v, %v", got, err)
	}
	if c := s.Commands(); len(c) != 2 || c[0] != cmds[0] {
		t.Fatalf("Commands() = %+v", c)
	}
	// Another scope keeps its own list.
	scoped := mustOK(t, callJSON(t, s, "getMyCommands", map[string]any{"scope": map[string]any{"type": "all_group_chats"}}))
	if string(scoped) != "[]" {
		t.Fatalf("group scope commands %s", scoped)
	}

	s.SendMessage(alice, PrivateChat(alice), "pending")
	mustOK(t, callJSON(t, s, "deleteWebhook", map[string]any{"drop_pending_updates": false}))
	if s.PendingUpdates() != 1 {
		t.Fatal("deleteWebhook without drop_pending_updates dropped updates")
	}
	mustOK(t, callJSON(t, s, "deleteWebhook", map[string]any{"drop_pending_updates": true}))
	if s.PendingUpdates() != 0 {
		t.Fatal("drop_pending_updates kept updates")
	}
}
