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
//
// Drafts and chat actions are another kind of call: Telegram implements both as typing notifications
// (messages.setTyping; a draft is a sendMessageTextDraftAction), which store no message, so they do not
// count in a chat's or a group's message windows. They have a window of their own per chat (PerChatActions)
// and count in the global limit with everything else, the conservative reading: every call the bot makes
// costs Telegram work, and the bot paces all of them under the same 30 a second.
type RateLimits struct {
	PerChat        Limit    // messages, every chat
	PerGroup       Limit    // messages, additionally, chats with a negative id (groups, supergroups, channels)
	PerChatActions Limit    // drafts and chat actions, every chat
	Global         Limit    // all counted calls of all chats together
	Methods        []string // counted as messages; nil means sendMessage, sendRichMessage, editMessageText, editMessageReplyMarkup
	Actions        []string // counted as actions; nil means sendMessageDraft, sendRichMessageDraft, sendChatAction
}

// DefaultRateLimits: per chat 3 messages per 3 s (one a second with a burst of 3), per group 20 messages per
// minute, per chat 3 drafts or chat actions per second, global 30 calls per second. Bot authors measured drafts
// sustained at about 9 a second per chat before a 429; a third of that is the model.
func DefaultRateLimits() RateLimits {
	return RateLimits{
		PerChat:        Limit{Max: 3, Window: 3 * time.Second},
		PerGroup:       Limit{Max: 20, Window: time.Minute},
		PerChatActions: Limit{Max: 3, Window: time.Second},
		Global:         Limit{Max: 30, Window: time.Second},
	}
}

type rateLimiter struct {
	limits  RateLimits
	methods map[string]bool
	actions map[string]bool
	seen    map[string][]time.Time // per bucket key, times of admitted calls, oldest first
	refused int
}

func newRateLimiter(l RateLimits) *rateLimiter {
	methods, actions := l.Methods, l.Actions
	if methods == nil {
		methods = []string{"sendMessage", "sendRichMessage", "editMessageText", "editMessageReplyMarkup"}
	}
	if actions == nil {
		actions = []string{"sendMessageDraft", "sendRichMessageDraft", "sendChatAction"}
	}
	rl := &rateLimiter{limits: l, methods: map[string]bool{}, actions: map[string]bool{}, seen: map[string][]time.Time{}}
	for _, m := range methods {
		rl.methods[strings.ToLower(m)] = true
	}
	for _, m := range actions {
		rl.actions[strings.ToLower(m)] = true
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
	if rl == nil {
		return nil
	}
	name := strings.ToLower(c.Method)
	message, action := rl.methods[name], rl.actions[name]
	if !message && !action {
		return nil
	}
	chatID := c.Int64("chat_id")
	buckets := []bucket{{"global", rl.limits.Global}}
	switch {
	case chatID != 0 && action:
		buckets = append(buckets, bucket{fmt.Sprintf("actions:%d", chatID), rl.limits.PerChatActions})
	case chatID != 0:
		buckets = append(buckets, bucket{fmt.Sprintf("chat:%d", chatID), rl.limits.PerChat})
		if chatID < 0 {
			buckets = append(buckets, bucket{fmt.Sprintf("group:%d", chatID), rl.limits.PerGroup})
		}
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
