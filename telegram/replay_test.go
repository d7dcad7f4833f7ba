package telegram_test

import (
	"net/http"
	"path"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/telegram"
)

// replayCheck notes every request to the Bot API whose body net/http could
// not send again.
type replayCheck struct {
	inner http.RoundTripper
	mu    sync.Mutex
	calls map[string]bool // method → replayable, false if any call was not
}

func (r *replayCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	ok := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	r.mu.Lock()
	m := path.Base(req.URL.Path)
	if prev, seen := r.calls[m]; !seen || prev {
		r.calls[m] = ok
	}
	r.mu.Unlock()
	return r.inner.RoundTrip(req)
}

// Telegram drains its HTTP/2 connections routinely (GOAWAY). net/http sends
// a request again on a fresh connection only when it can replay its body
// (Request.GetBody): every call the bot makes, polls and sends alike, must
// allow that, or each send in flight on a draining connection fails while
// updates keep arriving.
func TestRequestsCanBeReplayed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		check := &replayCheck{calls: map[string]bool{}}
		h := newHarness(t, echoScript, func(c *telegram.Config) { check.inner, c.Transport = c.Transport, check })
		h.say("hello")
		h.awaitText(h.dm.ID, "Answer: hello")
		h.say("/status")
		h.awaitText(h.dm.ID, "Model")
		h.stop()
		check.mu.Lock()
		defer check.mu.Unlock()
		for _, m := range []string{"getUpdates", "sendMessage", "setMyCommands"} {
			if _, seen := check.calls[m]; !seen {
				t.Errorf("the bot never called %s: %v", m, check.calls)
			}
		}
		for m, ok := range check.calls {
			if !ok {
				t.Errorf("a %s request could not be replayed after a GOAWAY (no GetBody)", m)
			}
		}
	})
}
