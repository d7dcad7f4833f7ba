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
	// These bound what the bot keeps: links are minted only by /web from
	// allowed users, sessions only by a valid link or initData, but a loop
	// of either must not grow memory without end. Both are bounded per
	// user, the oldest link and the least recently used session evicted:
	// one user's /web loop, or one leaked initData (valid 24 h), then only
	// crowds out that user's own, never keeps anyone else from signing in.
	// maxLogins is a backstop against many users (allow_any_user).
	maxLogins          = 1000
	maxLoginsPerUser   = 5
	maxSessionsPerUser = 20
)

// login is a one-time sign-in link's token: bound to a user, valid until.
type login struct {
	userID int64
	name   string
	until  time.Time
	seq    uint64 // auth.tick when minted: the oldest goes first
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
	tick     uint64 // counts links minted, sessions started and looked up: their order (the clock may stand still)
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
	makeRoom(a.logins, maxLoginsPerUser, func(l login) (int64, uint64) { return l.userID, l.seq }, userID)
	if len(a.logins) >= maxLogins {
		return "", fmt.Errorf("login token: %d unused links already", len(a.logins))
	}
	a.tick++
	a.logins[t] = login{userID: userID, name: name, until: a.now().Add(loginTTL), seq: a.tick}
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
	makeRoom(a.sessions, maxSessionsPerUser, func(s *session) (int64, uint64) { return s.userID, s.used }, userID)
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

// makeRoom deletes userID's entries of m, the lowest order first, until
// fewer than most are left: room for one more. of says whose an entry is
// and its order.
func makeRoom[V any](m map[string]V, most int, of func(V) (int64, uint64), userID int64) {
	var mine []string
	for k, v := range m {
		if u, _ := of(v); u == userID {
			mine = append(mine, k)
		}
	}
	if len(mine) < most {
		return
	}
	order := func(k string) uint64 { _, o := of(m[k]); return o }
	slices.SortFunc(mine, func(x, y string) int { return cmp.Compare(order(x), order(y)) })
	for _, k := range mine[:len(mine)-most+1] {
		delete(m, k)
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
