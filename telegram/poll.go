package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/telegram/contain"
	"github.com/untether/untether/telegram/outbox"
)

// allowedUpdates is sent with every poll: Telegram remembers the last value,
// so an older deployment's setting must not leak into ours.
var allowedUpdates = []string{"message", "edited_message", "callback_query", models.AllowedUpdateStoppedMessageGeneration}

// A failed getUpdates is retried after outbox.Backoff between these, unless
// Telegram says how long to wait (retry_after).
const (
	pollRetryMin = time.Second
	pollRetryMax = time.Minute
)

// poll runs getUpdates in a loop. go-telegram/bot's own poller confirms an
// update as soon as it is queued and runs handlers in random order; ours
// confirms (stores the offset) only after the update has been handled and
// keeps per-chat order.
func (b *Bot) poll(ctx context.Context) error {
	offset, err := b.store.Offset()
	if err != nil {
		return fmt.Errorf("read update offset: %w", err)
	}
	b.storedOffset.Store(offset)
	defer func() { b.saveOffset(offset) }()
	client := &http.Client{Timeout: b.cfg.PollTimeout + 15*time.Second, Transport: b.cfg.Transport}
	failures := 0 // in a row
	for ctx.Err() == nil {
		updates, err := b.getUpdates(ctx, client, offset)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			failures++
			wait := outbox.Backoff(failures, pollRetryMin, pollRetryMax)
			var ae *pollError
			if errors.As(err, &ae) && ae.retryAfter > 0 {
				wait = ae.retryAfter
			}
			b.log.Warn("getUpdates failed, retrying", "err", err, "retry_in", wait)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
			continue
		}
		readable := false
		for _, raw := range updates {
			id, u, ok := b.decodeOrSkip(raw)
			if !ok {
				continue
			}
			readable = true
			if id < offset {
				continue
			}
			if u != nil {
				contain.Update(b.log, b.redact, id, func() { b.handleUpdate(ctx, *u) })
			}
			offset = id + 1
		}
		if len(updates) > 0 && !readable {
			// Not one update_id could be read: the offset cannot move and
			// Telegram sends the batch again. Wait as after a failed poll
			// rather than ask for it again at once.
			failures++
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(outbox.Backoff(failures, pollRetryMin, pollRetryMax)):
			}
			continue
		}
		failures = 0
		if len(updates) == 0 {
			b.saveOffset(offset) // quiet: catch up with updates that did no work
		}
		b.logStrangers()
	}
	return ctx.Err()
}

// decodeOrSkip decodes one update of a batch; one that cannot be decoded
// is skipped (skipUnreadable) and u is nil. ok is false when not even its
// update_id can be read.
func (b *Bot) decodeOrSkip(raw json.RawMessage) (id int64, u *models.Update, ok bool) {
	dec, err := contain.Decode(raw)
	if err != nil {
		id, ok = b.skipUnreadable(raw, err)
		return id, nil, ok
	}
	return dec.ID, &dec, true
}

type pollError struct {
	msg        string
	retryAfter time.Duration
}

func (e *pollError) Error() string { return e.msg }

// getUpdates returns the batch undecoded: each update is decoded on its own
// (decodeOrSkip), so that one the bot cannot read costs only itself.
func (b *Bot) getUpdates(ctx context.Context, client *http.Client, offset int64) ([]json.RawMessage, error) {
	body, _ := json.Marshal(map[string]any{
		"offset":          offset,
		"timeout":         int(b.cfg.PollTimeout / time.Second),
		"allowed_updates": allowedUpdates,
	})
	url := strings.TrimRight(b.cfg.APIURL, "/") + "/bot" + b.cfg.Token + "/getUpdates"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, &pollError{msg: "getUpdates request: " + b.redact(err.Error())}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, &pollError{msg: "getUpdates: " + b.redact(err.Error())}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, &pollError{msg: "getUpdates: read body: " + b.redact(err.Error())}
	}
	var r struct {
		OK          bool              `json:"ok"`
		Result      []json.RawMessage `json:"result"`
		Description string            `json:"description"`
		Parameters  struct {
			RetryAfter int `json:"retry_after"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, &pollError{msg: fmt.Sprintf("getUpdates: HTTP %d with a body that is not JSON", resp.StatusCode)}
	}
	if !r.OK {
		return nil, &pollError{
			msg:        fmt.Sprintf("getUpdates: HTTP %d: %s", resp.StatusCode, b.redact(r.Description)),
			retryAfter: time.Duration(r.Parameters.RetryAfter) * time.Second,
		}
	}
	return r.Result, nil
}
