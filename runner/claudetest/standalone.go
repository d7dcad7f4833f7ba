package claudetest

import (
	"fmt"
	"net/http/httptest"
	"os"
)

// NewStandalone starts a fake API outside a test (the load command's
// burst runs the real CLI against it): it reports through logf, and
// errf gets what a test would fail with. Close ends it.
func NewStandalone(logf, errf func(format string, args ...any), steps ...Step) *API {
	a := newAPI(funcReporter{logf, errf}, steps...)
	a.srv = httptest.NewServer(a)
	return a
}

// Close ends the API. Slow streams wait on a.closed, so in-flight
// handlers end and Close does not block on them.
func (a *API) Close() {
	close(a.closed)
	a.srv.CloseClientConnections()
	a.srv.Close()
}

type funcReporter struct{ logf, errf func(string, ...any) }

func (r funcReporter) Logf(format string, args ...any)   { r.logf(format, args...) }
func (r funcReporter) Errorf(format string, args ...any) { r.errf(format, args...) }

// EnvIn is Env with a HOME the caller made (it must exist): for a CLI
// run outside a test.
func EnvIn(home, apiURL string) ([]string, error) {
	if _, err := os.Stat(home); err != nil {
		return nil, fmt.Errorf("claudetest: home: %w", err)
	}
	return envFor(home, apiURL), nil
}
