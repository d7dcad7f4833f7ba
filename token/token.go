// Package token mints the random names the bot hands out and must
// recognise later: the callback data of buttons (approvals, Cancel,
// /sessions). It imports nothing of ours, so every package may use it.
package token

import (
	"crypto/rand"
	"encoding/base64"
)

// size is the random bytes in a token: 96 bits cannot be guessed, and the
// 16 characters they make leave room in Telegram's 64-byte callback data
// for a prefix.
const size = 12

// New returns a fresh random token of 16 URL- and callback-safe
// characters (base64url, no padding).
func New() string {
	var raw [size]byte
	_, _ = rand.Read(raw[:]) // crypto/rand.Read never fails (it panics instead)
	return base64.RawURLEncoding.EncodeToString(raw[:])
}

// UUID returns a fresh random version 4 UUID in its usual spelling: the id
// an agent gives a prompt the bot names (Claude Code takes only UUIDs).
func UUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hex[c>>4], hex[c&0x0f])
	}
	return string(out)
}
