package tgtest

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Limit allows at most Max counted calls in any sliding Window. Max 0 disables it.
type Limit struct {
	Max    int
	Window time.Duration
}

// RateLimits are Telegram-like flood limits. Telegram does not publish exact numbers; these model the
// documented guidance ("about one message per second in a chat, 20 per minute in a group, 30 per second
// overall") closely enough to catch a bot that ignores pacing.
type RateLimits struct {
	PerChat  Limit    // every chat
	PerGroup Limit    // additionally, chats with a negative id (groups, supergroups, channels)
	Global   Limit    // all chats together
	Methods  []string // counted methods; nil means sendMessage, editMessageText, editMessageReplyMarkup
}

// DefaultRateLimits: per chat 3 calls per 3 s (one a second with a burst of 3), per group 20 per minute,
// global 30 per second.
func DefaultRateLimits() RateLimits {
	return RateLimits{
		PerChat:  Limit{Max: 3, Window: 3 * time.Second},
		PerGroup: Limit{Max: 20, Window: time.Minute},
		Global:   Limit{Max: 30, Window: time.Second},
	}
}

type rateLimiter struct {
	limits  RateLimits
	methods map[string]bool
	seen    map[string][]time.Time // per bucket key, times of admitted calls, oldest first
	refused int
}

func newRateLimiter(l RateLimits) *rateLimiter {
	methods := l.Methods
	if methods == nil {
		methods = []string{"sendMessage", "editMessageText", "editMessageReplyMarkup"}
	}
	rl := &rateLimiter{limits: l, methods: map[string]bool{}, seen: map[string][]time.Time{}}
	for _, m := range methods {
		rl.methods[strings.ToLower(m)] = true
	}
	return rl
}

type bucket struct {
	key   string
	limit Limit
}

// admit counts the call, or refuses it with a 429 whose retry_after is the whole seconds until every
// exceeded window has room again. Refused calls are not counted.
func (rl *rateLimiter) admit(c Call, now time.Time) *apiError {
	if rl == nil || !rl.methods[strings.ToLower(c.Method)] {
		return nil
	}
	chatID := c.Int64("chat_id")
	buckets := []bucket{{"global", rl.limits.Global}}
	if chatID != 0 {
		buckets = append(buckets, bucket{fmt.Sprintf("chat:%d", chatID), rl.limits.PerChat})
	}
	if chatID < 0 {
		buckets = append(buckets, bucket{fmt.Sprintf("group:%d", chatID), rl.limits.PerGroup})
	}
	var wait time.Duration
	for _, b := range buckets {
		if b.limit.Max <= 0 {
			continue
		}
		times := rl.prune(b.key, b.limit.Window, now)
		if len(times) >= b.limit.Max {
			// Room comes back when the oldest call that keeps the window full slides out.
			if w := times[len(times)-b.limit.Max].Add(b.limit.Window).Sub(now); w > wait {
				wait = w
			}
		}
	}
	if wait > 0 {
		rl.refused++
		secs := int((wait + time.Second - 1) / time.Second)
		return &apiError{
			code:        http.StatusTooManyRequests,
			description: fmt.Sprintf("Too Many Requests: retry after %d", secs),
			retryAfter:  secs,
		}
	}
	for _, b := range buckets {
		if b.limit.Max > 0 {
			rl.seen[b.key] = append(rl.seen[b.key], now)
		}
	}
	return nil
}

func (rl *rateLimiter) prune(key string, window time.Duration, now time.Time) []time.Time {
	times := rl.seen[key]
	i := 0
	for i < len(times) && !times[i].Add(window).After(now) {
		i++
	}
	times = times[i:]
	rl.seen[key] = times
	return times
}

// SetRateLimits turns the rate limiter on with l, or off with nil, from now on; counts start afresh.
func (s *Server) SetRateLimits(l *RateLimits) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limiter = nil
	if l != nil {
		s.limiter = newRateLimiter(*l)
	}
}

// RateLimited is how many calls the rate limiter refused with 429 (injected faults not included).
func (s *Server) RateLimited() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limiter == nil {
		return 0
	}
	return s.limiter.refused
}
