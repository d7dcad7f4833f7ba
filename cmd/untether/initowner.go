package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/untether/untether/human"
)

// owner is the account the bot will answer.
type owner struct {
	ID    int64
	asked bool // learnt from their message, which init answers
}

// update is the part of a Telegram update init reads.
type update struct {
	ID      int64 `json:"update_id"`
	Message *struct {
		From *botUser `json:"from"`
		Chat struct {
			ID   int64  `json:"id"`
			Type string `json:"type"`
		} `json:"chat"`
	} `json:"message"`
}

// maxPoll is the longest single getUpdates wait; the whole wait is --wait.
const maxPoll = 30 * time.Second

// owner is --user-id, else the sender of the first private message the
// bot receives after init asked for one, within --wait.
func (s *setup) owner(ctx context.Context, bot botAPI, me botUser) (owner, error) {
	if s.flags.userID > 0 {
		fmt.Fprintf(s.out, "✓ Only user %d may use the bot (--user-id).\n", s.flags.userID)
		return owner{ID: s.flags.userID}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.flags.wait)
	defer cancel()
	// What reached the bot before now is no answer to this request (a
	// stranger may have found the bot): offset -1 returns only the last
	// update, and the next offset forgets it and all before it.
	var old []update
	if err := bot.call(ctx, "getUpdates", urlValues("offset", -1, "timeout", 0), &old); err != nil {
		return owner{}, s.pollProblem(ctx, me, err)
	}
	var offset int64
	if len(old) > 0 {
		offset = old[len(old)-1].ID + 1
	}
	fmt.Fprintf(s.out, "\nSend any message to @%s from the account that will use it (https://t.me/%s).\n"+
		"Waiting up to %s...\n", me.Username, me.Username, human.DurationUp(s.flags.wait))
	for {
		var ups []update
		params := urlValues("timeout", pollSeconds(ctx))
		if offset != 0 {
			params.Set("offset", strconv.FormatInt(offset, 10))
		}
		if err := bot.call(ctx, "getUpdates", params, &ups); err != nil {
			return owner{}, s.pollProblem(ctx, me, err)
		}
		for _, u := range ups {
			offset = u.ID + 1
			m := u.Message
			if m == nil || m.From == nil || m.From.IsBot || m.Chat.Type != "private" {
				continue
			}
			// Confirm it, so that the bot, once started, does not run it
			// as a prompt. Losing this call only means it does.
			_ = bot.call(ctx, "getUpdates", urlValues("offset", offset, "timeout", 0), nil)
			fmt.Fprintf(s.out, "✓ Message from %s: only this account may use the bot.\n", describeUser(*m.From))
			return owner{ID: m.From.ID, asked: true}, nil
		}
	}
}

// pollProblem explains a failed getUpdates.
func (s *setup) pollProblem(ctx context.Context, me botUser, err error) error {
	var refused *apiRefused
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("nobody wrote to @%s within %s: run untether init again and send the bot a message while it waits "+
			"(or pass --user-id with your numeric Telegram user id)", me.Username, human.DurationUp(s.flags.wait))
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &refused) && refused.status == 409:
		return fmt.Errorf("another program receives @%s's messages (%v): stop it (an untether already running with this token?) "+
			"and run untether init again, or pass --user-id", me.Username, refused)
	}
	return fmt.Errorf("waiting for a message to @%s: %w", me.Username, err)
}

// pollSeconds is the next getUpdates timeout: what is left of the wait, at
// most maxPoll, at least a second (the context ends the call in time).
func pollSeconds(ctx context.Context) int {
	left := maxPoll
	if d, ok := ctx.Deadline(); ok {
		left = min(left, time.Until(d))
	}
	return max(1, int(left/time.Second))
}

// describeUser is "Ada Lovelace (@ada, id 4242)". Names are whatever the
// sender chose: control characters go, so that none reaches the terminal.
func describeUser(u botUser) string {
	name := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) { // Cf: bidi overrides and the like
			return -1
		}
		return r
	}, strings.TrimSpace(u.FirstName+" "+u.LastName))
	var more []string
	if u.Username != "" {
		more = append(more, "@"+u.Username)
	}
	more = append(more, "id "+strconv.FormatInt(u.ID, 10))
	return strings.TrimSpace(name + " (" + strings.Join(more, ", ") + ")")
}

// urlValues builds form parameters from name, value pairs.
func urlValues(kv ...any) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(fmt.Sprint(kv[i]), fmt.Sprint(kv[i+1]))
	}
	return v
}
