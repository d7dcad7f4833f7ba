package weblink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// API asks the Bot API what the web view needs to know (a group's title,
// who is in it) over its own HTTP client: the web view's questions are no
// methods of telegram.Bot.
type API struct {
	URL    string // "" : Telegram's
	Token  string
	Client *http.Client // nil: http.DefaultClient
}

// callTimeout bounds one question: a page waits for the answer.
const callTimeout = 5 * time.Second

// get calls method with q and decodes its result into out.
func (a API) get(ctx context.Context, method string, q url.Values, out any) error {
	base := strings.TrimRight(a.URL, "/")
	if base == "" {
		base = "https://api.telegram.org"
	}
	client := a.Client
	if client == nil {
		client = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/bot"+a.Token+"/"+method+"?"+q.Encode(), nil)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", method, redactToken(err, a.Token))
	}
	defer resp.Body.Close()
	var body struct {
		OK          bool            `json:"ok"`
		Description string          `json:"description"`
		Result      json.RawMessage `json:"result"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&body); err != nil {
		return fmt.Errorf("%s: status %d: %w", method, resp.StatusCode, err)
	}
	if !body.OK {
		return fmt.Errorf("%s: %d %w", method, resp.StatusCode, errors.New(body.Description))
	}
	if err := json.Unmarshal(body.Result, out); err != nil {
		return fmt.Errorf("%s: result: %w", method, err)
	}
	return nil
}

// redactToken keeps the bot's token (in the URL) out of an error's text.
func redactToken(err error, token string) error {
	return errors.New(strings.ReplaceAll(err.Error(), token, "<token>"))
}
