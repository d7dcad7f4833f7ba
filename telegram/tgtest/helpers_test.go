package tgtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// answer is one HTTP answer of the fake.
type answer struct {
	status int
	apiResp
}

type apiResp struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  *struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

var (
	alice = User{ID: 1001, FirstName: "Alice", Username: "alice"}
	bob   = User{ID: 1002, FirstName: "Bob", Username: "bobby"}
)

// root and client are how a test reaches s: over loopback, or through Transport for an InMemory server (a
// test in a synctest bubble).
func root(s *Server) string {
	if s.inMemory {
		return MemoryURL
	}
	return s.URL()
}

func client(s *Server) *http.Client {
	if s.inMemory {
		return &http.Client{Transport: s.Transport()}
	}
	return http.DefaultClient
}

func do(t *testing.T, s *Server, req *http.Request) answer {
	t.Helper()
	res, err := client(s).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	var r apiResp
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	if r.OK != (res.StatusCode == http.StatusOK) || (!r.OK && r.ErrorCode != res.StatusCode) {
		t.Fatalf("status %d disagrees with body %s", res.StatusCode, body)
	}
	return answer{res.StatusCode, r}
}

// callJSON posts params as a JSON body.
func callJSON(t *testing.T, s *Server, method string, params map[string]any) answer {
	t.Helper()
	return callJSONCtx(t, context.Background(), s, method, params)
}

func callJSONCtx(t *testing.T, ctx context.Context, s *Server, method string, params map[string]any) answer {
	t.Helper()
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, root(s)+"/bot"+s.Token()+"/"+method, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return do(t, s, req)
}

// callForm posts params urlencoded.
func callForm(t *testing.T, s *Server, method string, params url.Values) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, root(s)+"/bot"+s.Token()+"/"+method, strings.NewReader(params.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(t, s, req)
}

func mustOK(t *testing.T, a answer) json.RawMessage {
	t.Helper()
	if a.status != http.StatusOK || !a.OK {
		t.Fatalf("want ok, got %d %q", a.status, a.Description)
	}
	return a.Result
}

func wantError(t *testing.T, a answer, code int, desc string) {
	t.Helper()
	if a.status != code || a.OK || a.ErrorCode != code || a.Description != desc {
		t.Fatalf("got %d %q, want %d %q", a.status, a.Description, code, desc)
	}
}

type sentMessage struct {
	MessageID       int             `json:"message_id"`
	MessageThreadID int             `json:"message_thread_id"`
	IsTopicMessage  bool            `json:"is_topic_message"`
	Text            string          `json:"text"`
	Entities        []Entity        `json:"entities"`
	ReplyMarkup     json.RawMessage `json:"reply_markup"`
	EditDate        int64           `json:"edit_date"`
	Chat            Chat            `json:"chat"`
	From            User            `json:"from"`
	ReplyTo         *struct {
		MessageID         int             `json:"message_id"`
		ForumTopicCreated json.RawMessage `json:"forum_topic_created"`
	} `json:"reply_to_message"`
}

func decodeMessage(t *testing.T, raw json.RawMessage) sentMessage {
	t.Helper()
	var m sentMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("decode message %s: %v", raw, err)
	}
	return m
}

func send(t *testing.T, s *Server, chatID int64, text string, extra map[string]any) sentMessage {
	t.Helper()
	p := map[string]any{"chat_id": chatID, "text": text}
	for k, v := range extra {
		p[k] = v
	}
	return decodeMessage(t, mustOK(t, callJSON(t, s, "sendMessage", p)))
}

func keyboardOf(rows ...[]Button) map[string]any {
	return map[string]any{"inline_keyboard": rows}
}

func httpPost(s *Server, method string, body []byte) (*http.Response, error) {
	return http.Post(s.URL()+"/bot"+s.Token()+"/"+method, "application/json", bytes.NewReader(body))
}
