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
