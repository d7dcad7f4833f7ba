package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/untether/untether/redact"
)

// botAPI makes the few Bot API calls of the commands that run before (or
// beside) the bot: doctor checks the token, init waits for the owner's
// first message. Plain HTTP, and no error ever holds the token.
type botAPI struct {
	url    string // without /bot…
	token  string
	client *http.Client // nil: http.DefaultClient
}

// botUser is the part of a Telegram User the commands read.
type botUser struct {
	ID        int64  `json:"id"`
	IsBot     bool   `json:"is_bot"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Username  string `json:"username"`
}

// apiRefused is a Bot API answer with ok=false.
type apiRefused struct {
	method string
	status int
	desc   string
}

func (e *apiRefused) Error() string { return fmt.Sprintf("%s: %d %s", e.method, e.status, e.desc) }

// badToken reports whether Telegram does not know the token: it answers
// 401 to a revoked or mistyped one, 404 to one that is not a token at all.
func (e *apiRefused) badToken() bool {
	return e.status == http.StatusUnauthorized || e.status == http.StatusNotFound
}

// apiUnreachable is a call that got no HTTP answer.
type apiUnreachable struct{ err error }

func (e *apiUnreachable) Error() string { return e.err.Error() }
func (e *apiUnreachable) Unwrap() error { return e.err }

// apiNotBotAPI is an HTTP answer that is not a Bot API one: api_url points
// at some other server.
type apiNotBotAPI struct{ status int }

func (e *apiNotBotAPI) Error() string {
	return fmt.Sprintf("HTTP %d, and not like a Bot API server", e.status)
}

// call posts params to method and decodes the result into result (unless nil).
func (a botAPI) call(ctx context.Context, method string, params url.Values, result any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url+"/bot"+a.token+"/"+method, strings.NewReader(params.Encode()))
	if err != nil {
		return fmt.Errorf("%s: %s", method, a.hide(err.Error()))
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	client := a.client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err // the URL holds the token and adds nothing
		}
		return &apiUnreachable{err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("reading the answer to %s: %w", method, err)
	}
	var r struct {
		OK          bool            `json:"ok"`
		Result      json.RawMessage `json:"result"`
		Description string          `json:"description"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return &apiNotBotAPI{status: resp.StatusCode}
	}
	if !r.OK {
		return &apiRefused{method: method, status: resp.StatusCode, desc: a.hide(r.Description)}
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(r.Result, result); err != nil {
		return fmt.Errorf("%s: unexpected result: %w", method, err)
	}
	return nil
}

// hide removes the token from a text that may quote the URL.
func (a botAPI) hide(s string) string { return redact.New(a.token).String(s) }
