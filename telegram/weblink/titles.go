package weblink

import (
	"context"
	"log/slog"
	"net/url"
	"strconv"
	"sync"
)

// Titles names groups for the web view's home page: getChat's title,
// asked once per group and kept while the bot runs (a renamed group shows
// its old name until a restart).
type Titles struct {
	API   API
	Log   *slog.Logger
	mu    sync.Mutex
	known map[int64]string
}

// Title is chatID's title, "" when Telegram does not say.
func (t *Titles) Title(ctx context.Context, chatID int64) string {
	t.mu.Lock()
	title, ok := t.known[chatID]
	t.mu.Unlock()
	if ok {
		return title
	}
	var chat struct {
		Title string `json:"title"`
	}
	if err := t.API.get(ctx, "getChat", url.Values{"chat_id": {strconv.FormatInt(chatID, 10)}}, &chat); err != nil {
		t.Log.Debug("could not learn a group's title", "chat_id", chatID, "err", err)
		return ""
	}
	t.mu.Lock()
	if t.known == nil {
		t.known = map[int64]string{}
	}
	t.known[chatID] = chat.Title
	t.mu.Unlock()
	return chat.Title
}
