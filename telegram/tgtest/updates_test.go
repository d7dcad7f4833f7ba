package tgtest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

type gotUpdate struct {
	UpdateID int64 `json:"update_id"`
	Message  *struct {
		Text string `json:"text"`
	} `json:"message"`
}

func pollJSON(t *testing.T, ctx context.Context, s *Server, params map[string]any) []gotUpdate {
	t.Helper()
	raw := mustOK(t, callJSONCtx(t, ctx, s, "getUpdates", params))
	var ups []gotUpdate
	if err := json.Unmarshal(raw, &ups); err != nil {
		t.Fatalf("decode updates %s: %v", raw, err)
	}
	return ups
}

// pollAsync polls from another goroutine, where t.Fatal is not allowed.
func pollAsync(s *Server, params map[string]any) <-chan []gotUpdate {
	out := make(chan []gotUpdate, 1)
	go func() {
		defer close(out)
		b, _ := json.Marshal(params)
		res, err := http.Post(s.URL()+"/bot"+s.Token()+"/getUpdates", "application/json", strings.NewReader(string(b)))
		if err != nil {
			return
		}
		defer res.Body.Close()
		var r struct {
			OK     bool        `json:"ok"`
			Result []gotUpdate `json:"result"`
		}
		if json.NewDecoder(res.Body).Decode(&r) == nil && r.OK {
			out <- r.Result
		}
	}()
	return out
}

func updateIDs(ups []gotUpdate) []int64 {
	var ids []int64
	for _, u := range ups {
		ids = append(ids, u.UpdateID)
	}
	return ids
}

func TestGetUpdatesOffsetConfirmsForever(t *testing.T) {
	s := New(t)
	ctx := context.Background()
	a := s.SendMessage(alice, PrivateChat(alice), "one")
	_ = s.SendMessage(alice, PrivateChat(alice), "two")
	_ = s.SendMessage(alice, PrivateChat(alice), "three")
	if a != 1 {
		t.Fatalf("first message id %d, want 1", a)
	}

	all := pollJSON(t, ctx, s, nil)
	if len(all) != 3 || all[0].Message.Text != "one" || all[2].UpdateID != all[0].UpdateID+2 {
		t.Fatalf("first poll: %+v", all)
	}
	// Unconfirmed updates come again.
	if again := pollJSON(t, ctx, s, map[string]any{"offset": 0}); len(again) != 3 {
		t.Fatalf("redelivery: %v", updateIDs(again))
	}
	second := all[1].UpdateID
	if got := pollJSON(t, ctx, s, map[string]any{"offset": second}); len(got) != 2 || got[0].UpdateID != second {
		t.Fatalf("offset %d: %v", second, updateIDs(got))
	}
	// The confirmed update is gone even for a lower offset.
	if got := pollJSON(t, ctx, s, map[string]any{"offset": 0, "limit": 1}); len(got) != 1 || got[0].UpdateID != second {
		t.Fatalf("after confirmation, limit 1: %v", updateIDs(got))
	}
	if got := pollJSON(t, ctx, s, map[string]any{"offset": -1}); len(got) != 1 || got[0].UpdateID != all[2].UpdateID {
		t.Fatalf("offset -1: %v", updateIDs(got))
	}
	if n := s.PendingUpdates(); n != 1 {
		t.Fatalf("negative offset must forget older updates, %d pending", n)
	}
	pollJSON(t, ctx, s, map[string]any{"offset": all[2].UpdateID + 1})
	if n := s.PendingUpdates(); n != 0 {
		t.Fatalf("%d pending after confirming all", n)
	}
}

func TestGetUpdatesHoldsUntilAnUpdateArrives(t *testing.T) {
	s := New(t)
	got := pollAsync(s, map[string]any{"timeout": 50})
	s.Await(10*time.Second, "the poll to be held", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.updates.poller != nil
	})
	select {
	case ups := <-got:
		t.Fatalf("poll answered before any update: %v", updateIDs(ups))
	default:
	}
	id := s.AddUpdate(`{"update_id": 1, "message": {"message_id": 5, "date": 0, "chat": {"id": 1, "type": "private"}, "text": "raw"}}`)
	ups, ok := <-got
	if !ok || len(ups) != 1 || ups[0].UpdateID != id || ups[0].Message.Text != "raw" {
		t.Fatalf("held poll returned %+v, want update %d", ups, id)
	}
	// The raw update's chat is known now: the bot can answer there.
	send(t, s, 1, "answer", nil)
}

// getUpdates runs in synctest time here: ServeHTTP is driven directly, without a listener.
func serveDirect(s *Server, method, query string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/bot"+s.Token()+"/"+method+"?"+query, nil)
	s.ServeHTTP(rec, req)
	return rec
}

func TestGetUpdatesTimeoutAndConflict(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t)
		start := time.Now()
		rec := serveDirect(s, "getUpdates", "timeout=7")
		if waited := time.Since(start); waited != 7*time.Second {
			t.Errorf("empty poll waited %v, want its 7 s timeout", waited)
		}
		if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != `{"ok":true,"result":[]}` {
			t.Errorf("timeout answer %d %s", rec.Code, rec.Body)
		}

		first := make(chan *httptest.ResponseRecorder, 1)
		go func() { first <- serveDirect(s, "getUpdates", "timeout=30") }()
		synctest.Wait()
		second := serveDirect(s, "getUpdates", "timeout=0")
		old := <-first
		if old.Code != http.StatusConflict || !strings.Contains(old.Body.String(),
			"Conflict: terminated by other getUpdates request; make sure that only one bot instance is running") {
			t.Errorf("older poll got %d %s, want 409", old.Code, old.Body)
		}
		if second.Code != 200 {
			t.Errorf("newer poll got %d", second.Code)
		}
	})
}

func TestCloseReleasesHeldPoll(t *testing.T) {
	s := New(t)
	done := pollAsync(s, map[string]any{"timeout": 50})
	s.Await(10*time.Second, "the poll to be held", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.updates.poller != nil
	})
	s.Close()
	if ups, ok := <-done; !ok || len(ups) != 0 {
		t.Fatalf("released poll returned %v (answered: %v)", updateIDs(ups), ok)
	}
	s.Close() // idempotent
}

func TestClientLeavingEndsHeldPoll(t *testing.T) {
	s := New(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+"/bot"+s.Token()+"/getUpdates?timeout=50", nil)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	s.Await(10*time.Second, "the poll to be held", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.updates.poller != nil
	})
	cancel()
	c := s.AwaitCall(10*time.Second, "getupdates", nil)
	if c.Status != 0 || c.Params["timeout"] != "50" {
		t.Fatalf("abandoned poll recorded as %+v", c)
	}
}

func TestAllowedUpdatesRecordedAndApplied(t *testing.T) {
	s := New(t)
	if s.AllowedUpdates() != nil {
		t.Fatal("no allowed_updates sent yet")
	}
	if id := s.AddUpdate(map[string]any{"message_reaction": map[string]any{}}); id != 0 {
		t.Fatal("message_reaction is not delivered unless asked for")
	}
	mustOK(t, callForm(t, s, "getUpdates", url.Values{"allowed_updates": {`["message","callback_query"]`}}))
	if got := s.AllowedUpdates(); len(got) != 2 || got[0] != "message" || got[1] != "callback_query" {
		t.Fatalf("AllowedUpdates = %v", got)
	}
	if id := s.AddUpdate(`{"edited_message": {}}`); id != 0 {
		t.Fatal("edited_message was not asked for")
	}
	if id := s.AddUpdate(`{"callback_query": {}}`); id == 0 {
		t.Fatal("callback_query was asked for")
	}
}

func TestRoutingAndAuth(t *testing.T) {
	s := New(t)
	get := func(path string) answer {
		req, _ := http.NewRequest(http.MethodGet, s.URL()+path, nil)
		return do(t, s, req)
	}
	wantError(t, get("/bot123:wrong/getMe"), 401, "Unauthorized")
	wantError(t, get("/bot"+s.Token()+"/noSuchMethod"), 404, "Not Found")
	wantError(t, get("/nothing"), 404, "Not Found")

	var me struct {
		ID       int64  `json:"id"`
		IsBot    bool   `json:"is_bot"`
		Username string `json:"username"`
	}
	if err := json.Unmarshal(mustOK(t, get("/bot"+s.Token()+"/GETME")), &me); err != nil {
		t.Fatal(err)
	}
	if !me.IsBot || me.ID != 7000000001 || me.Username != s.Bot().Username {
		t.Fatalf("getMe = %+v", me)
	}
	// The refused call with the wrong token is recorded too.
	if c := s.CallsTo("getMe"); len(c) != 2 || c[0].Status != 401 || c[1].Method != "getMe" || !c[1].OK() {
		t.Fatalf("case-insensitive method recorded as %+v", c)
	}
}

func TestQueryAndFormParamsParsed(t *testing.T) {
	s := New(t, WithChats(PrivateChat(alice)))
	req, _ := http.NewRequest(http.MethodGet, s.URL()+"/bot"+s.Token()+"/sendMessage?chat_id=1001&text=from+query", nil)
	mustOK(t, do(t, s, req))
	mustOK(t, callForm(t, s, "sendMessage", url.Values{"chat_id": {"1001"}, "text": {"<b>form</b>"}, "parse_mode": {"HTML"}}))
	msgs := s.Messages(alice.ID)
	if len(msgs) != 2 || msgs[0].Text != "from query" || msgs[1].Text != "form" || msgs[1].Entities[0].Type != "bold" {
		t.Fatalf("messages %+v", msgs)
	}
	c := s.CallsTo("sendMessage")[1]
	if c.Param("parse_mode") != "HTML" || c.Int64("chat_id") != 1001 || !c.OK() {
		t.Fatalf("recorded call %+v", c)
	}
}
