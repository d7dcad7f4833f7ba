package outbox

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-telegram/bot"
)

// verdict is what the outbox does with the outcome of one call.
type verdict int

const (
	vSuccess   verdict = iota // delivered (or an edit that changed nothing)
	vRetryWait                // 429: wait retry_after, then retry
	vBackoff                  // 5xx / network: retry with exponential backoff
	vFail                     // anything else (400, 403, ...): give the error to the caller
)

// classify is the single place that maps a Bot API error to a verdict.
// It works on go-telegram/bot's typed errors, on wrapped errors, and falls
// back to the text, so callers may wrap freely or use another client.
func classify(err error) (verdict, time.Duration) {
	switch {
	case err == nil || isNotModified(err):
		return vSuccess, 0
	}
	if d, ok := retryAfter(err); ok {
		return vRetryWait, d
	}
	if isTransient(err) {
		return vBackoff, 0
	}
	return vFail, 0
}

// minRetryAfter guards against a 429 that carries no (or a zero) hint:
// retrying immediately would just earn another 429.
const minRetryAfter = time.Second

var retryAfterText = regexp.MustCompile(`retry[ _]after[:= ]*(\d+)`)

// retryAfter reports whether err is a flood-control error (HTTP 429) and how
// long Telegram asked us to wait.
func retryAfter(err error) (time.Duration, bool) {
	if err == nil {
		return 0, false
	}
	var tmr *bot.TooManyRequestsError
	if errors.As(err, &tmr) {
		return max(time.Duration(tmr.RetryAfter)*time.Second, minRetryAfter), true
	}
	text := strings.ToLower(err.Error())
	if m := retryAfterText.FindStringSubmatch(text); m != nil {
		n, convErr := strconv.Atoi(m[1])
		if convErr == nil {
			return max(time.Duration(n)*time.Second, minRetryAfter), true
		}
	}
	if errors.Is(err, bot.ErrorTooManyRequests) || strings.Contains(text, "too many requests") {
		return minRetryAfter, true
	}
	return 0, false
}

// go-telegram/bot reports status codes it has no sentinel for (all 5xx) only
// in the text: "error response from telegram for method M, 502 Bad Gateway".
var statusText = regexp.MustCompile(`error response from telegram for method \S+, (\d{3})`)

var serverErrorWords = []string{
	"internal server error",
	"bad gateway",
	"service unavailable",
	"gateway timeout",
	// A proxy in front of the API answering with an HTML error page.
	"error decode response body",
}

// isTransient reports whether retrying the same call later can succeed:
// server errors, network failures, timeouts.
func isTransient(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true // the per-attempt timeout, or the HTTP client's
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return true
		}
		return isNetworkFailure(ue.Err)
	}
	if isNetworkFailure(err) {
		return true
	}
	text := strings.ToLower(err.Error())
	if m := statusText.FindStringSubmatch(text); m != nil {
		code, convErr := strconv.Atoi(m[1])
		return convErr == nil && code >= 500
	}
	for _, w := range serverErrorWords {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// isNetworkFailure is true for connection-level errors; a malformed URL or
// an unsupported scheme (configuration bugs) are not retried.
func isNetworkFailure(err error) bool {
	var ne net.Error
	switch {
	case errors.As(err, &ne):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED):
		return true
	}
	return false
}

// isNotModified detects the 400 Telegram returns for an edit whose content
// and markup equal the current ones; for the caller that is a success.
func isNotModified(err error) bool {
	return err != nil && strings.Contains(strings.ToLower(err.Error()), "message is not modified")
}

// Backoff returns the wait before retry number attempt (1-based): doubling
// from min, capped at max, with "equal jitter" (between half and all of it)
// so chats that failed together do not retry together. It is the bot's one
// backoff: the outbox's retries and the poller's use it.
func Backoff(attempt int, minD, maxD time.Duration) time.Duration {
	d := minD
	for i := 1; i < attempt && d < maxD; i++ {
		d *= 2
	}
	d = min(d, maxD)
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(d-half+1)
}
