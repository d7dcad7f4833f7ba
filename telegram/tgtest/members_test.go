package tgtest

import (
	"encoding/json"
	"testing"
)

// getChatMember answers like the Bot API: a user who wrote in a group is a
// member, one who never joined is "left", SetMember's statuses come back
// with their fields, and the errors carry Telegram's texts in its order.
func TestGetChatMember(t *testing.T) {
	grp := Supergroup(-1001234, "Team")
	s := New(t, WithChats(grp, PrivateChat(alice)))
	s.SendMessage(alice, grp, "hello team")
	carol := User{ID: 1003, FirstName: "Carol"}
	dave := User{ID: 1004, FirstName: "Dave"}
	erin := User{ID: 1005, FirstName: "Erin"}
	s.SetMember(grp, carol, StatusRestricted, true)
	s.SetMember(grp, dave, StatusRestricted, false)
	s.SetMember(grp, erin, StatusKicked, false)

	type member struct {
		User     User   `json:"user"`
		Status   string `json:"status"`
		IsMember *bool  `json:"is_member"`
	}
	get := func(chatID, userID int64) member {
		t.Helper()
		var m member
		if err := json.Unmarshal(mustOK(t, callJSON(t, s, "getChatMember", map[string]any{"chat_id": chatID, "user_id": userID})), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, c := range []struct {
		chat, user int64
		status     string
		name       string
	}{
		{grp.ID, alice.ID, StatusMember, "Alice"},
		{grp.ID, bob.ID, StatusLeft, ""},
		{grp.ID, dave.ID, StatusRestricted, "Dave"},
		{grp.ID, erin.ID, StatusKicked, "Erin"},
		{grp.ID, s.Bot().ID, StatusMember, s.Bot().FirstName},
		{alice.ID, alice.ID, StatusMember, "Alice"},
	} {
		if m := get(c.chat, c.user); m.Status != c.status || m.User.ID != c.user || m.User.FirstName != c.name {
			t.Errorf("chat %d user %d: %+v, want %s", c.chat, c.user, m, c.status)
		}
	}
	if m := get(grp.ID, carol.ID); m.Status != StatusRestricted || m.IsMember == nil || !*m.IsMember {
		t.Errorf("restricted member: %+v", m)
	}
	if m := get(grp.ID, dave.ID); m.IsMember == nil || *m.IsMember {
		t.Errorf("restricted non-member: %+v", m)
	}
	s.SetMember(grp, alice, StatusLeft, false)
	if m := get(grp.ID, alice.ID); m.Status != StatusLeft {
		t.Errorf("after leaving: %+v", m)
	}

	wantError(t, callJSON(t, s, "getChatMember", map[string]any{"user_id": alice.ID}), 400, "Bad Request: chat_id is empty")
	wantError(t, callJSON(t, s, "getChatMember", map[string]any{"chat_id": 555}), 400, "Bad Request: invalid user_id specified")
	wantError(t, callJSON(t, s, "getChatMember", map[string]any{"chat_id": 555, "user_id": alice.ID}), 400, "Bad Request: chat not found")
}
