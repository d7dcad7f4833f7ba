package tgtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestDetectEntities(t *testing.T) {
	tests := []struct {
		text string
		want []Entity
	}{
		{"/start", []Entity{{Type: "bot_command", Offset: 0, Length: 6}}},
		{"/cancel@tgtest_bot now", []Entity{{Type: "bot_command", Offset: 0, Length: 18}}},
		{"hey @tgtest_bot run /status", []Entity{{Type: "mention", Offset: 4, Length: 11}, {Type: "bot_command", Offset: 20, Length: 7}}},
		{"😀 /x", []Entity{{Type: "bot_command", Offset: 3, Length: 2}}},
		{"mail me@example.com or a/b or @abc", nil}, // inside words, and a too-short username
		{"/", nil},
	}
	for _, tt := range tests {
		if got := detectEntities(tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("detectEntities(%q) = %+v, want %+v", tt.text, got, tt.want)
		}
	}
}

func TestPressButtonAndAnswer(t *testing.T) {
	s := New(t)
	chat := PrivateChat(alice)
	s.SendMessage(alice, chat, "/start")
	m := send(t, s, alice.ID, "Allow?", map[string]any{"reply_markup": keyboardOf([]Button{{Text: "Allow", CallbackData: "ok:1"}})})

	id := s.PressButton(alice, chat, m.MessageID, "ok:1")
	var ups []struct {
		CallbackQuery *struct {
			ID      string `json:"id"`
			From    User   `json:"from"`
			Data    string `json:"data"`
			Message struct {
				MessageID   int             `json:"message_id"`
				Text        string          `json:"text"`
				ReplyMarkup json.RawMessage `json:"reply_markup"`
			} `json:"message"`
		} `json:"callback_query"`
	}
	if err := json.Unmarshal(mustOK(t, callJSON(t, s, "getUpdates", nil)), &ups); err != nil || len(ups) != 2 {
		t.Fatalf("updates: %v %d", err, len(ups))
	}
	cq := ups[1].CallbackQuery
	if cq == nil || cq.ID != id || cq.Data != "ok:1" || cq.From.ID != alice.ID || cq.Message.MessageID != m.MessageID ||
		cq.Message.Text != "Allow?" || !strings.Contains(string(cq.Message.ReplyMarkup), "ok:1") {
		t.Fatalf("callback query %+v", cq)
	}

	if _, ok := s.CallbackAnswer(id); ok {
		t.Fatal("answered before the bot answered")
	}
	mustOK(t, callForm(t, s, "answerCallbackQuery", url.Values{"callback_query_id": {id}, "text": {"Allowed"}, "show_alert": {"true"}}))
	const invalid = "Bad Request: query is too old and response timeout expired or query ID is invalid"
	wantError(t, callJSON(t, s, "answerCallbackQuery", map[string]any{"callback_query_id": id}), 400, invalid)
	wantError(t, callJSON(t, s, "answerCallbackQuery", map[string]any{"callback_query_id": "123"}), 400, invalid)
	a, ok := s.CallbackAnswer(id)
	if !ok || a.Text != "Allowed" || !a.ShowAlert || a.Data != "ok:1" || a.MessageID != m.MessageID || a.ChatID != alice.ID {
		t.Fatalf("answer %+v", a)
	}
	if all := s.CallbackAnswers(); len(all) != 1 {
		t.Fatalf("CallbackAnswers = %+v", all)
	}

	id2 := s.PressButton(alice, chat, m.MessageID, "ok:1")
	wantError(t, callJSON(t, s, "answerCallbackQuery", map[string]any{"callback_query_id": id2, "text": strings.Repeat("x", 201)}),
		400, "Bad Request: MESSAGE_TOO_LONG")
}

// A press can be answered for a limited time only, like Telegram's.
func TestCallbackAnswerTooLate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		alice := User{ID: 1001, FirstName: "Alice"}
		chat := PrivateChat(alice)
		s := New(t, InMemory(), WithChats(chat))
		m := send(t, s, chat.ID, "Allow?", map[string]any{"reply_markup": keyboardOf([]Button{{Text: "Yes", CallbackData: "ok:1"}})})
		onTime := s.PressButton(alice, chat, m.MessageID, "ok:1")
		late := s.PressButton(alice, chat, m.MessageID, "ok:1")
		time.Sleep(CallbackTimeout)
		mustOK(t, callJSON(t, s, "answerCallbackQuery", map[string]any{"callback_query_id": onTime}))
		time.Sleep(time.Second)
		wantError(t, callJSON(t, s, "answerCallbackQuery", map[string]any{"callback_query_id": late}), 400,
			"Bad Request: query is too old and response timeout expired or query ID is invalid")
		if _, ok := s.CallbackAnswer(late); ok {
			t.Fatal("a late answer was recorded")
		}
	})
}

// recordingTB keeps Errorf calls instead of failing, to test how helpers report misuse.
type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestPressButtonRefusesMissingButtonButStalePressWorks(t *testing.T) {
	rec := &recordingTB{TB: t}
	s := newServer(rec, WithChats(PrivateChat(alice)))
	if res := serveDirect(s, "sendMessage", "chat_id=1001&text=hi"); res.Code != 200 {
		t.Fatalf("send: %d %s", res.Code, res.Body)
	}
	if id := s.PressButton(alice, PrivateChat(alice), 1, "gone"); id != "" || len(rec.errs) != 1 {
		t.Fatalf("PressButton on a message without that button: id %q, errors %v", id, rec.errs)
	}
	id := s.SendCallbackQuery(alice, PrivateChat(alice), 77, "old")
	var ups []struct {
		CallbackQuery struct {
			ID      string `json:"id"`
			Message struct {
				MessageID int   `json:"message_id"`
				Date      int64 `json:"date"`
			} `json:"message"`
		} `json:"callback_query"`
	}
	res := serveDirect(s, "getUpdates", "")
	var body struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(res.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(body.Result, &ups); err != nil || len(ups) != 1 {
		t.Fatalf("updates %s", body.Result)
	}
	if q := ups[0].CallbackQuery; q.ID != id || q.Message.MessageID != 77 || q.Message.Date != 0 {
		t.Fatalf("stale press %+v", q)
	}
}

func TestWaitFor(t *testing.T) {
	s := New(t, WithChats(PrivateChat(alice)))
	go func() {
		for i := range 3 {
			b, _ := json.Marshal(map[string]any{"chat_id": alice.ID, "text": fmt.Sprint("step ", i)})
			res, err := httpPost(s, "sendMessage", b)
			if err == nil {
				res.Body.Close()
			}
		}
	}()
	m := s.AwaitMessage(10*time.Second, alice.ID, func(m Message) bool { return m.Text == "step 2" })
	if m.ID != 3 {
		t.Fatalf("message %+v", m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := s.WaitFor(ctx, func() bool { return false }); err == nil {
		t.Fatal("WaitFor must fail when its context ends")
	}
}
