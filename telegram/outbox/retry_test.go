package outbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-telegram/bot"
)

func TestTooManyRequestsPausesOnlyThatChat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{ChatBurst: 1})
		flood := fmt.Errorf("send: %w", &bot.TooManyRequestsError{Message: "too many requests", RetryAfter: 5})
		final := o.Enqueue(r.job(1, High, "final", flood))
		var other []<-chan error
		for i := range 4 {
			other = append(other, o.Enqueue(r.job(2, Normal, fmt.Sprintf("b%d", i))))
		}
		if err := <-final; err != nil {
			t.Fatalf("final = %v, want delivered", err)
		}
		waitAll(t, other...)

		if got := r.labels(1); !slices.Equal(got, []string{"final", "final"}) {
			t.Fatalf("chat 1 calls = %v, want final twice (429, then delivered)", got)
		}
		if ta := r.times(1); ta[1] != 5*time.Second {
			t.Fatalf("retry at %v, want exactly at retry_after 5s", ta[1])
		}
		tb := r.times(2)
		if len(tb) != 4 || tb[3] >= 5*time.Second {
			t.Fatalf("chat 2 calls at %v: it must not be paused by chat 1's 429", tb)
		}
		if s := o.Stats(); s.TooMany != 1 || s.Retried != 1 || s.Sent != 5 {
			t.Fatalf("stats = %+v, want 1 429, 1 retry, 5 sent", s)
		}
	})
}

func TestTooManyRequestsPausesWholeChat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{ChatBurst: 1})
		flood := &bot.TooManyRequestsError{Message: "too many requests", RetryAfter: 5}
		edit := o.Enqueue(r.job(1, Low, "edit", flood))
		// A higher-priority job arriving during the pause must wait for it too.
		time.Sleep(time.Second)
		final := o.Enqueue(r.job(1, High, "final"))
		waitAll(t, edit, final)
		if got := r.labels(1); !slices.Equal(got, []string{"edit", "final", "edit"}) {
			t.Fatalf("calls = %v, want edit (429), final, edit", got)
		}
		ts := r.times(1)
		if ts[1] != 5*time.Second || ts[2] != 6*time.Second {
			t.Fatalf("calls at %v, want final at 5s and the edit retry 1s later", ts)
		}
	})
}

func TestTooManyRequestsOnUnpacedJobRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{})
		j := r.job(1, Normal, "answer", errors.New("Too Many Requests: retry after 2"))
		j.Unpaced = true
		if err := o.Send(t.Context(), j); err != nil {
			t.Fatal(err)
		}
		ts := r.times(1)
		if len(ts) != 2 || ts[1] < 2*time.Second {
			t.Fatalf("calls at %v, want a retry after 2s", ts)
		}
	})
}

func TestServerErrorRetriedWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		minB, maxB := 2*time.Second, 5*time.Second
		o := newTestOutbox(t, Options{BackoffMin: minB, BackoffMax: maxB})
		e502 := errors.New("error response from telegram for method sendMessage, 502 Bad Gateway")
		if err := o.Send(t.Context(), r.job(1, High, "final", e502, e502, e502)); err != nil {
			t.Fatalf("Send = %v, want delivered after retries", err)
		}
		ts := r.times(1)
		if len(ts) != 4 {
			t.Fatalf("%d calls, want 4 (3 failures + success)", len(ts))
		}
		nominal := []time.Duration{minB, 2 * minB, maxB}
		for i, d := range nominal {
			gap := ts[i+1] - ts[i]
			if gap < d/2 || gap > d {
				t.Errorf("gap %d = %v, want within [%v, %v]", i, gap, d/2, d)
			}
		}
		if s := o.Stats(); s.Retried != 3 || s.Sent != 1 || s.Failed != 0 {
			t.Fatalf("stats = %+v", s)
		}
	})
}

func TestBadRequestReturnedWithoutRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{})
		bad := fmt.Errorf("%w, %s", bot.ErrorBadRequest, "Bad Request: can't parse entities")
		err := o.Send(t.Context(), r.job(1, High, "final", bad))
		if !errors.Is(err, bot.ErrorBadRequest) {
			t.Fatalf("Send = %v, want the bad request error", err)
		}
		time.Sleep(time.Minute)
		if n := len(r.times(1)); n != 1 {
			t.Fatalf("%d calls, want exactly 1", n)
		}
		if s := o.Stats(); s.Failed != 1 || s.Retried != 0 {
			t.Fatalf("stats = %+v", s)
		}
	})
}

func TestNotModifiedIsSuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{})
		nm := fmt.Errorf("%w, %s", bot.ErrorBadRequest,
			"Bad Request: message is not modified: specified new message content and reply markup are exactly the same")
		if err := o.Send(t.Context(), r.job(1, Low, "edit", nm)); err != nil {
			t.Fatalf("Send = %v, want nil", err)
		}
		if n := len(r.times(1)); n != 1 {
			t.Fatalf("%d calls, want 1", n)
		}
	})
}

func TestUnpacedNotBehindPacedWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{ChatBurst: 1})
		var chans []<-chan error
		for i := range 5 {
			chans = append(chans, o.Enqueue(r.job(1, Low, fmt.Sprintf("edit%d", i))))
		}
		time.Sleep(1500 * time.Millisecond)
		ans := r.job(1, Normal, "answer")
		ans.Unpaced = true
		if err := o.Send(t.Context(), ans); err != nil {
			t.Fatal(err)
		}
		waitAll(t, chans...)
		for _, c := range r.snapshot() {
			if c.label == "answer" && c.at > 1600*time.Millisecond {
				t.Fatalf("callback answer ran at %v, want right away at 1.5s", c.at)
			}
		}
		// It must not have eaten the chat's budget either: edits stay 1s apart.
		ts := r.times(1)
		var edits []time.Duration
		for i, c := range r.labels(1) {
			if c != "answer" {
				edits = append(edits, ts[i])
			}
		}
		for i := 1; i < len(edits); i++ {
			if d := edits[i] - edits[i-1]; d != time.Second {
				t.Fatalf("edit gap %d = %v, want exactly 1s", i, d)
			}
		}
	})
}

// Low unpaced jobs (answers to strangers' presses) are background work:
// every ready job goes first, whatever its priority, and they run one at a
// time, so a flood of them delays a chat's message by at most one call.
func TestLowUnpacedGoesAfterReadyWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{MaxInFlight: 1, GlobalPerSecond: -1})
		g := newGate()
		chans := []<-chan error{g.hold(o, r, 9)}
		for i := range 5 {
			j := r.job(0, Low, fmt.Sprintf("junk%d", i))
			j.Unpaced = true
			chans = append(chans, o.Enqueue(j))
		}
		ans := r.job(0, Normal, "owner-toast")
		ans.Unpaced = true
		chans = append(chans, o.Enqueue(ans), o.Enqueue(r.job(1, Low, "owner-edit")), o.Enqueue(r.job(2, High, "owner-final")))
		close(g.release)
		waitAll(t, chans...)
		var got []string
		for _, c := range r.snapshot() {
			got = append(got, c.label)
		}
		want := []string{"busy", "owner-toast", "owner-final", "owner-edit", "junk0", "junk1", "junk2", "junk3", "junk4"}
		if !slices.Equal(got, want) {
			t.Fatalf("order = %v, want %v", got, want)
		}
	})
}

func TestLowUnpacedRunOneAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := newTestOutbox(t, Options{GlobalPerSecond: -1})
		var mu sync.Mutex
		running, most := 0, 0
		var chans []<-chan error
		for range 6 {
			chans = append(chans, o.Enqueue(Job{Unpaced: true, Priority: Low, Do: func(ctx context.Context) error {
				mu.Lock()
				running++
				most = max(most, running)
				mu.Unlock()
				time.Sleep(100 * time.Millisecond)
				mu.Lock()
				running--
				mu.Unlock()
				return nil
			}}))
		}
		waitAll(t, chans...)
		if most != 1 {
			t.Fatalf("%d background calls ran at once, want 1", most)
		}
	})
}
