package tgtest

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestSendMessageDraftChecks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		grp := Supergroup(-1001, "Team")
		s := New(t, InMemory(), WithChats(PrivateChat(alice), grp))
		draft := func(params map[string]any) answer { return callJSON(t, s, "sendMessageDraft", params) }

		mustOK(t, draft(map[string]any{"chat_id": alice.ID, "draft_id": 7, "text": "<b>Hel</b>lo", "parse_mode": "HTML"}))
		// An empty text is the "Thinking…" placeholder; a string id reads as the number, as Telegram's server does.
		mustOK(t, draft(map[string]any{"chat_id": alice.ID, "draft_id": "7", "text": ""}))
		wantError(t, draft(map[string]any{"chat_id": grp.ID, "draft_id": 7, "text": "x"}), 400, "Bad Request: TEXTDRAFT_PEER_INVALID")
		wantError(t, draft(map[string]any{"chat_id": alice.ID, "draft_id": 0, "text": "x"}), 400,
			"Bad Request: draft_id must be a non-zero integer")
		wantError(t, draft(map[string]any{"chat_id": alice.ID, "draft_id": 1.5, "text": "x"}), 400,
			"Bad Request: draft_id must be a non-zero integer")
		wantError(t, draft(map[string]any{"chat_id": alice.ID, "draft_id": 7, "text": "<b>open", "parse_mode": "HTML"}), 400,
			"Bad Request: can't parse entities: Can't find end tag corresponding to start tag \"b\"")
		// The limit counts the text after parsing: markup is free.
		long := strings.Repeat("x", MaxTextLen)
		mustOK(t, draft(map[string]any{"chat_id": alice.ID, "draft_id": 7, "text": "<i>" + long + "</i>", "parse_mode": "HTML"}))
		wantError(t, draft(map[string]any{"chat_id": alice.ID, "draft_id": 7, "text": long + "y"}), 400, "Bad Request: TEXT_TOO_LONG")

		got := s.Drafts(alice.ID)
		if len(got) != 3 || got[0].Text != "Hello" || len(got[0].Entities) != 1 || got[1].Text != "" || got[0].ID != 7 {
			t.Fatalf("Drafts = %+v", got)
		}
		if len(s.Messages(alice.ID)) != 0 {
			t.Fatal("a draft stored a message")
		}
	})
}

// A client shows the newest draft until a message of the bot replaces it, or
// for DraftTTL.
func TestLiveDraft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(t, InMemory(), WithChats(PrivateChat(alice)))
		mustOK(t, callJSON(t, s, "sendMessageDraft", map[string]any{"chat_id": alice.ID, "draft_id": 1, "text": "partial"}))
		if d, ok := s.LiveDraft(alice.ID, 0); !ok || d.Text != "partial" {
			t.Fatalf("LiveDraft = %+v, %v", d, ok)
		}
		time.Sleep(DraftTTL)
		if _, ok := s.LiveDraft(alice.ID, 0); ok {
			t.Fatal("a draft outlived its TTL")
		}
		mustOK(t, callJSON(t, s, "sendMessageDraft", map[string]any{"chat_id": alice.ID, "draft_id": 1, "text": "again"}))
		time.Sleep(time.Second)
		send(t, s, alice.ID, "final", nil)
		if _, ok := s.LiveDraft(alice.ID, 0); ok {
			t.Fatal("the final message did not replace the draft")
		}
	})
}

// Drafts and chat actions have a window of their own per chat, apart from
// messages, and count in the global limit.
func TestRateLimitActions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		limits := DefaultRateLimits()
		limits.Global = Limit{Max: 8, Window: time.Second}
		s := New(t, InMemory(), WithRateLimits(limits), WithChats(PrivateChat(alice), PrivateChat(bob)))
		draft := map[string]any{"chat_id": alice.ID, "draft_id": 1, "text": "x"}
		for range 3 {
			send(t, s, alice.ID, "m", nil) // the message window is full…
		}
		mustOK(t, callJSON(t, s, "sendMessageDraft", draft)) // …drafts still go
		mustOK(t, callJSON(t, s, "sendChatAction", map[string]any{"chat_id": alice.ID, "action": "typing"}))
		mustOK(t, callJSON(t, s, "sendMessageDraft", draft))
		wantRetryAfter(t, callJSON(t, s, "sendMessageDraft", draft), 1)
		// 6 calls so far count globally; two more fill the global window.
		mustOK(t, callJSON(t, s, "sendMessageDraft", map[string]any{"chat_id": bob.ID, "draft_id": 1, "text": "x"}))
		mustOK(t, callJSON(t, s, "sendChatAction", map[string]any{"chat_id": bob.ID, "action": "typing"}))
		wantRetryAfter(t, callJSON(t, s, "sendChatAction", map[string]any{"chat_id": bob.ID, "action": "typing"}), 1)
		time.Sleep(time.Second)
		mustOK(t, callJSON(t, s, "sendMessageDraft", draft))
		if n := s.RateLimited(); n != 2 {
			t.Fatalf("RateLimited = %d, want 2", n)
		}
	})
}

// A draft sent with can_stop can be stopped: the bot gets the update, the
// draft goes unless kept; one without can_stop has no button.
func TestStopDraft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(t, InMemory(), WithChats(PrivateChat(alice)))
		draft := func(params map[string]any) answer { return callJSON(t, s, "sendMessageDraft", params) }
		wantError(t, draft(map[string]any{"chat_id": alice.ID, "draft_id": 3, "text": "x", "keep_on_stop": true}), 400,
			"Bad Request: keep_on_stop requires can_stop")
		wantError(t, draft(map[string]any{"chat_id": alice.ID, "draft_id": 3, "text": "x", "can_stop": "yes"}), 400,
			"Bad Request: can_stop must be a Boolean")

		mustOK(t, draft(map[string]any{"chat_id": alice.ID, "draft_id": 3, "text": "plain"}))
		if _, ok := s.StopDraft(alice.ID, 0); ok {
			t.Fatal("a draft without can_stop was stopped")
		}
		mustOK(t, draft(map[string]any{"chat_id": alice.ID, "draft_id": 3, "text": "half", "can_stop": true}))
		id, ok := s.StopDraft(alice.ID, 0)
		if !ok || id == 0 {
			t.Fatalf("StopDraft = %d, %v", id, ok)
		}
		if _, live := s.LiveDraft(alice.ID, 0); live {
			t.Fatal("a stopped draft still shows")
		}
		if _, ok := s.StopDraft(alice.ID, 0); ok {
			t.Fatal("a stopped draft was stopped again")
		}
		raw := string(mustOK(t, callJSON(t, s, "getUpdates", map[string]any{"offset": id, "timeout": 0})))
		if !strings.Contains(raw, `"stopped_message_generation":{"chat":{"id":`) || !strings.Contains(raw, `"draft_id":3`) {
			t.Fatalf("update = %s", raw)
		}
		// Only asked for: a bot that leaves it out of allowed_updates gets none.
		mustOK(t, callJSON(t, s, "getUpdates", map[string]any{"offset": id + 1, "timeout": 0, "allowed_updates": []string{"message"}}))

		time.Sleep(time.Second)
		mustOK(t, draft(map[string]any{"chat_id": alice.ID, "draft_id": 4, "text": "kept", "can_stop": true, "keep_on_stop": true}))
		if id, ok := s.StopDraft(alice.ID, 0); !ok || id != 0 {
			t.Fatalf("StopDraft of a kept draft = %d, %v; want no update (not in allowed_updates)", id, ok)
		}
		if d, live := s.LiveDraft(alice.ID, 0); !live || d.Text != "kept" {
			t.Fatalf("a draft with keep_on_stop went: %+v %v", d, live)
		}
		if st := s.Stopped(alice.ID); len(st) != 2 || st[0].ID != 3 || st[1].ID != 4 {
			t.Fatalf("Stopped = %+v", st)
		}
	})
}
