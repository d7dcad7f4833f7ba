package weblink

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Titles names groups for the web view's home page: getChat's title,
// asked once per group and kept while the bot runs (a renamed group shows
// its old name until a restart).
type Titles struct {
	APIURL string // "" : Telegram's
	Token  string
	Client *http.Client
	Log    *slog.Logger
	mu     sync.Mutex
	known  map[int64]string
}

// Title is chatID's title, "" when Telegram does not say.
func (t *Titles) Title(ctx context.Context, chatID int64) string {
	t.mu.Lock()
	title, ok := t.known[chatID]
	t.mu.Unlock()
	if ok {
		return title
	}
	title, err := t.ask(ctx, chatID)
	if err != nil {
		t.Log.Debug("could not learn a group's title", "chat_id", chatID, "err", err)
		return ""
	}
	t.mu.Lock()
	if t.known == nil {
		t.known = map[int64]string{}
	}
	t.known[chatID] = title
	t.mu.Unlock()
	return title
}

func (t *Titles) ask(ctx context.Context, chatID int64) (string, error) {
	base := strings.TrimRight(t.APIURL, "/")
	if base == "" {
		base = "https://api.telegram.org"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		base+"/bot"+t.Token+"/getChat?chat_id="+strconv.FormatInt(chatID, 10), nil)
	if err != nil {
		return "", fmt.Errorf("getChat: %w", err)
	}
	resp, err := t.Client.Do(req)
	if err != nil {
		return "", fmt.Errorf("getChat: %w", redactToken(err, t.Token))
	}
	defer resp.Body.Close()
	var out struct {
		OK     bool `json:"ok"`
		Result struct {
			Title string `json:"title"`
		} `json:"result"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out); err != nil || !out.OK {
		return "", fmt.Errorf("getChat: status %d: %v", resp.StatusCode, err)
	}
	return out.Result.Title, nil
}

// redactToken keeps the bot's token (in the URL) out of an error's text.
func redactToken(err error, token string) error {
	return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), token, "<token>"))
}
