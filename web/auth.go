package web

import (
	"cmp"
	"crypto/subtle"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/untether/untether/token"
)

// Who is signed in. Everything is in memory: a restart of the bot signs
// everyone out, and a sign-in link outlives nothing.

const (
	loginTTL   = 10 * time.Minute
	sessionTTL = 24 * time.Hour
	// maxLogins and maxSessionsPerUser bound what the bot keeps: links
	// are minted only by /web from allowed users, sessions only by a valid
	// link or initData, but a loop of either must not grow memory without
	// end. Sessions are bounded per user, the least recently used evicted:
	// one leaked initData (valid 24 h) can then only crowd out its own
	// user's sessions, never keep anyone else from signing in.
	maxLogins          = 1000
	maxSessionsPerUser = 20
)

// login is a one-time sign-in link's token: bound to a user, valid until.
type login struct {
	userID int64
	name   string
	until  time.Time
}

// session is a signed-in browser.
type session struct {
	id     string
	userID int64
	name   string
	csrf   string
	until  time.Time
	used   uint64 // auth.tick when last looked up: the least recently used goes first
}

// auth keeps the login tokens and sessions.
type auth struct {
	now      func() time.Time
	mu       sync.Mutex
	logins   map[string]login
	sessions map[string]*session
	tick     uint64 // counts starts and lookups, the order of use (the clock may stand still)
}

func newAuth(now func() time.Time) *auth {
	return &auth{now: now, logins: map[string]login{}, sessions: map[string]*session{}}
}

// issue mints a sign-in token for userID.
func (a *auth) issue(userID int64, name string) (string, error) {
	t := secret()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sweepLocked()
	if len(a.logins) >= maxLogins {
		return "", fmt.Errorf("login token: %d unused links already", len(a.logins))
	}
	a.logins[t] = login{userID: userID, name: name, until: a.now().Add(loginTTL)}
	return t, nil
}

// valid says whether t would sign in, without using it up (the page that
// asks the browser to sign in).
func (a *auth) valid(t string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	l, ok := a.logins[t]
	return ok && a.now().Before(l.until)
}

// redeem uses t up and starts a session for its user.
func (a *auth) redeem(t string) (*session, bool) {
	a.mu.Lock()
	l, ok := a.logins[t]
	delete(a.logins, t)
	a.mu.Unlock()
	if !ok || !a.now().Before(l.until) {
		return nil, false
	}
	return a.start(l.userID, l.name), true
}

// start begins a session for userID. It always does: a user at
// maxSessionsPerUser loses their least recently used session.
func (a *auth) start(userID int64, name string) *session {
	s := &session{id: secret(), userID: userID, name: name, csrf: secret(), until: a.now().Add(sessionTTL)}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sweepLocked()
	var mine []*session
	for _, o := range a.sessions {
		if o.userID == userID {
			mine = append(mine, o)
		}
	}
	if len(mine) >= maxSessionsPerUser {
		slices.SortFunc(mine, func(x, y *session) int { return cmp.Compare(x.used, y.used) })
		for _, o := range mine[:len(mine)-maxSessionsPerUser+1] {
			delete(a.sessions, o.id)
		}
	}
	a.tick++
	s.used = a.tick
	a.sessions[s.id] = s
	return s
}

// lookup is the live session id names.
func (a *auth) lookup(id string) (*session, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[id]
	if !ok || !a.now().Before(s.until) {
		delete(a.sessions, id)
		return nil, false
	}
	a.tick++
	s.used = a.tick
	return s, true
}

// logout ends every session of userID and its unused links.
func (a *auth) logout(userID int64) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for id, s := range a.sessions {
		if s.userID == userID {
			delete(a.sessions, id)
			n++
		}
	}
	for t, l := range a.logins {
		if l.userID == userID {
			delete(a.logins, t)
		}
	}
	return n
}

func (a *auth) sweepLocked() {
	now := a.now()
	for t, l := range a.logins {
		if !now.Before(l.until) {
			delete(a.logins, t)
		}
	}
	for id, s := range a.sessions {
		if !now.Before(s.until) {
			delete(a.sessions, id)
		}
	}
}

// secret is a fresh random name of 192 bits (two of package token's).
func secret() string { return token.New() + token.New() }

// csrfOK says whether got is the session's CSRF token.
func (s *session) csrfOK(got string) bool {
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) == 1
}

// limiter counts failed sign-in attempts: per client address and in all,
// a fixed number per window. It never keeps a valid link or initData from
// signing in: behind a proxy or tunnel every client has the proxy's
// address, and a stranger's guesses would lock the owner out. Guessing a
// 192-bit token is hopeless anyway; past the limit a failure is answered
// 429 and no longer logged, so the limiter bounds the answers and the log.
type limiter struct {
	now      func() time.Time
	perAddr  int
	total    int
	window   time.Duration
	mu       sync.Mutex
	start    time.Time
	byAddr   map[string]int
	allCount int
}

func newLimiter(now func() time.Time) *limiter {
	return &limiter{now: now, perAddr: 20, total: 200, window: time.Minute, byAddr: map[string]int{}}
}

// fail counts one failed attempt from addr and says whether it is within
// the limits (false: answer 429, log nothing).
func (l *limiter) fail(addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now := l.now(); now.Sub(l.start) >= l.window {
		l.start, l.byAddr, l.allCount = now, map[string]int{}, 0
	}
	l.allCount++
	if _, seen := l.byAddr[addr]; seen || len(l.byAddr) < l.total { // the map stays bounded too
		l.byAddr[addr]++
	}
	return l.byAddr[addr] <= l.perAddr && l.allCount <= l.total
}
