package tgtest

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

func wantRetryAfter(t *testing.T, a answer, secs int) {
	t.Helper()
	wantError(t, a, 429, fmt.Sprintf("Too Many Requests: retry after %d", secs))
	if a.Parameters == nil || a.Parameters.RetryAfter != secs {
		t.Fatalf("parameters %+v, want retry_after %d", a.Parameters, secs)
	}
}

// The rate-limit tests run in a synctest bubble: time.Sleep moves the server's clock exactly.
func TestRateLimitPerChat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(t, InMemory(), WithRateLimits(DefaultRateLimits()), WithChats(PrivateChat(alice), PrivateChat(bob)))
		msg := map[string]any{"chat_id": alice.ID, "text": "x"}

		first := send(t, s, alice.ID, "burst 1", nil)
		send(t, s, alice.ID, "burst 2", nil)
		time.Sleep(500 * time.Millisecond)
		// An edit counts like a send.
		mustOK(t, callJSON(t, s, "editMessageText", map[string]any{"chat_id": alice.ID, "message_id": first.MessageID, "text": "edited"}))
		wantRetryAfter(t, callJSON(t, s, "sendMessage", msg), 3) // the window frees at 3 s, 2.5 s away: rounded up
		time.Sleep(2 * time.Second)
		wantRetryAfter(t, callJSON(t, s, "sendMessage", msg), 1)
		// Another chat is not affected; deleting does not count.
		send(t, s, bob.ID, "other chat", nil)
		mustOK(t, callJSON(t, s, "deleteMessage", map[string]any{"chat_id": alice.ID, "message_id": first.MessageID}))
		time.Sleep(500 * time.Millisecond)
		mustOK(t, callJSON(t, s, "sendMessage", msg))
		if n := s.RateLimited(); n != 2 {
			t.Fatalf("RateLimited = %d, want 2", n)
		}
		if n := len(s.Messages(alice.ID)); n != 2 {
			t.Fatalf("refused sends must not store messages: %d stored", n)
		}
	})
}

func TestRateLimitPerGroupAndGlobal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		grp := Group(-4001, "Team")
		s := New(t, InMemory(), WithChats(grp, PrivateChat(alice)), WithRateLimits(RateLimits{
			PerGroup: Limit{Max: 20, Window: time.Minute},
			Global:   Limit{Max: 5, Window: time.Second},
		}))
		for i := range 20 {
			send(t, s, grp.ID, fmt.Sprint("m", i), nil)
			time.Sleep(time.Second)
		}
		// 20 sent at 0..19 s; now is 20 s: the first leaves the window at 60 s.
		wantRetryAfter(t, callJSON(t, s, "sendMessage", map[string]any{"chat_id": grp.ID, "text": "21st"}), 40)
		send(t, s, alice.ID, "private chats are not group-limited", nil)
		time.Sleep(40 * time.Second)
		send(t, s, grp.ID, "room again", nil)

		// Global: five in the same instant across chats, the sixth waits a second.
		time.Sleep(time.Minute)
		for range 5 {
			send(t, s, alice.ID, "g", nil)
		}
		wantRetryAfter(t, callJSON(t, s, "sendMessage", map[string]any{"chat_id": grp.ID, "text": "x"}), 1)
		if n := s.RateLimited(); n != 2 {
			t.Fatalf("RateLimited = %d", n)
		}

		s.SetRateLimits(nil)
		for range 10 {
			send(t, s, alice.ID, "unlimited", nil)
		}
		if n := s.RateLimited(); n != 0 {
			t.Fatalf("RateLimited after turning off = %d", n)
		}
	})
}
