package tgtest

import (
	"fmt"
	"net/http"
	"strings"
)

// Failure is how an injected fault answers a call. The call changes no state.
type Failure struct {
	// Code is the HTTP status and error_code, e.g. 429, 500, 502, 403.
	Code int
	// Description defaults to Telegram's wording for Code ("Too Many Requests: retry after N", ...).
	Description string
	// RetryAfter goes to parameters.retry_after (429 only, as Telegram).
	RetryAfter int
	// RawBody, when set, is sent verbatim as text/html instead of JSON: what the proxy in front of the Bot API
	// sends on a real 502.
	RawBody string
	// Hang never answers: the call is held until the client gives up or the server closes.
	Hang bool
	// Drop closes the connection without answering.
	Drop bool
}

// TooManyRequests is Telegram's flood-control answer.
func TooManyRequests(retryAfter int) Failure {
	return Failure{Code: http.StatusTooManyRequests, RetryAfter: retryAfter}
}

// BlockedByUser is what Telegram answers when the user blocked the bot.
func BlockedByUser() Failure {
	return Failure{Code: http.StatusForbidden, Description: "Forbidden: bot was blocked by the user"}
}

func (f Failure) apiError() *apiError {
	e := &apiError{code: f.Code, description: f.Description}
	if f.Code == http.StatusTooManyRequests {
		e.retryAfter = f.RetryAfter
		if e.description == "" {
			e.description = fmt.Sprintf("Too Many Requests: retry after %d", f.RetryAfter)
		}
	}
	if e.description == "" {
		switch f.Code {
		case http.StatusBadRequest:
			e.description = "Bad Request"
		case http.StatusForbidden:
			e.description = "Forbidden"
		case http.StatusConflict:
			e.description = "Conflict"
		default:
			e.description = http.StatusText(f.Code)
		}
	}
	return e
}

// faultRule fails calls to method ("" = any) that satisfy pred (nil = all), remaining times (<0 = forever).
type faultRule struct {
	method    string
	pred      func(Call) bool
	remaining int
	failure   Failure
}

// faults are consulted in the order they were added; the server's lock guards them.
type faults struct{ rules []*faultRule }

func (fs *faults) match(c Call) (Failure, bool) {
	for i, r := range fs.rules {
		if r.method != "" && !strings.EqualFold(r.method, c.Method) {
			continue
		}
		if r.pred != nil && !r.pred(c) {
			continue
		}
		if r.remaining > 0 {
			r.remaining--
			if r.remaining == 0 {
				fs.rules = append(fs.rules[:i:i], fs.rules[i+1:]...)
			}
		}
		return r.failure, true
	}
	return Failure{}, false
}

func (fs *faults) remove(target *faultRule) {
	for i, r := range fs.rules {
		if r == target {
			fs.rules = append(fs.rules[:i:i], fs.rules[i+1:]...)
			return
		}
	}
}

// FailNext makes the next n calls of method (case-insensitive) fail with f. Several FailNext for one method
// queue up in order.
func (s *Server) FailNext(method string, n int, f Failure) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.rules = append(s.faults.rules, &faultRule{method: method, remaining: n, failure: f})
}

// FailWhen fails every call for which pred is true until stop is called. pred sees the parsed call (Method,
// Params, Time) and runs under the server's lock: it must not call the Server's methods.
func (s *Server) FailWhen(pred func(Call) bool, f Failure) (stop func()) {
	r := &faultRule{pred: pred, remaining: -1, failure: f}
	s.mu.Lock()
	s.faults.rules = append(s.faults.rules, r)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.faults.remove(r)
	}
}

// serveFault answers a call the fault injection caught; the call is already recorded.
func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, f Failure) {
	switch {
	case f.Hang:
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
	case f.Drop:
		if d, ok := w.(interface{ drop() }); ok {
			d.drop() // served in memory (Transport): there is no connection to close
			return
		}
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic("tgtest: Drop needs an HTTP/1 connection") // httptest.Server always gives one
		}
		conn, _, err := hj.Hijack()
		if err == nil {
			_ = conn.Close() // dropping the connection is the whole point; its error says nothing
		}
	case f.RawBody != "":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(f.Code)
		_, _ = w.Write([]byte(f.RawBody)) // the client may be gone
	default:
		writeBody(w, f.Code, errorBody(f.apiError()))
	}
}

// faultRecord is how a caught call appears in Calls.
func faultRecord(c Call, f Failure) Call {
	switch {
	case f.Hang || f.Drop:
		c.Status = 0
	case f.RawBody != "":
		c.Status, c.Response = f.Code, []byte(f.RawBody)
	default:
		c.Status, c.Response = f.Code, errorBody(f.apiError())
	}
	return c
}
