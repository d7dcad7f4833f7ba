package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A Mini App's launch data (initData) is checked as Telegram documents
// (core.telegram.org/bots/webapps, "Validating data received via the Mini
// App"): the data-check-string is every field but hash, "key=value", sorted
// by key, joined by "\n"; the secret key is HMAC-SHA256 of the bot's token
// keyed with "WebAppData"; hash is the hex HMAC-SHA256 of the
// data-check-string keyed with the secret key.

// maxInitDataAge is how old an initData may be: Telegram signs it when the
// Mini App opens, and a copy that leaked must not sign in for ever.
const maxInitDataAge = 24 * time.Hour

// maxInitData bounds what is parsed (Telegram's is a few hundred bytes).
const maxInitData = 4096

var (
	errBadInitData = errors.New("initData does not verify")
	errOldInitData = errors.New("initData is too old")
)

// appUser is who a verified initData names.
type appUser struct {
	ID        int64
	FirstName string
}

// checkInitData verifies raw against the bot's token at now.
func checkInitData(raw, botToken string, now time.Time) (appUser, error) {
	if len(raw) > maxInitData {
		return appUser{}, fmt.Errorf("%w: %d bytes", errBadInitData, len(raw))
	}
	vals, err := url.ParseQuery(raw)
	if err != nil {
		return appUser{}, fmt.Errorf("%w: %w", errBadInitData, err)
	}
	got, err := hex.DecodeString(vals.Get("hash"))
	if err != nil || len(got) != sha256.Size {
		return appUser{}, fmt.Errorf("%w: no hash", errBadInitData)
	}
	lines := make([]string, 0, len(vals))
	for k, v := range vals {
		if k == "hash" {
			continue
		}
		if len(v) != 1 { // a repeated field is no data Telegram signed
			return appUser{}, fmt.Errorf("%w: field %q repeated", errBadInitData, k)
		}
		lines = append(lines, k+"="+v[0])
	}
	slices.Sort(lines)
	if !hmac.Equal(got, initDataHash(botToken, strings.Join(lines, "\n"))) {
		return appUser{}, errBadInitData
	}
	sec, err := strconv.ParseInt(vals.Get("auth_date"), 10, 64)
	if err != nil {
		return appUser{}, fmt.Errorf("%w: auth_date: %w", errBadInitData, err)
	}
	if age := now.Sub(time.Unix(sec, 0)); age > maxInitDataAge || age < -5*time.Minute {
		return appUser{}, fmt.Errorf("%w: signed %s ago", errOldInitData, age.Round(time.Second))
	}
	var u struct {
		ID        int64  `json:"id"`
		FirstName string `json:"first_name"`
	}
	if err := json.Unmarshal([]byte(vals.Get("user")), &u); err != nil || u.ID == 0 {
		return appUser{}, fmt.Errorf("%w: no user", errBadInitData)
	}
	return appUser{ID: u.ID, FirstName: u.FirstName}, nil
}

// initDataHash is the hash Telegram puts in initData for dataCheck.
func initDataHash(botToken, dataCheck string) []byte {
	secret := hmac.New(sha256.New, []byte("WebAppData"))
	secret.Write([]byte(botToken))
	h := hmac.New(sha256.New, secret.Sum(nil))
	h.Write([]byte(dataCheck))
	return h.Sum(nil)
}

// SignInitData makes initData for user as Telegram would sign it for the
// bot with botToken at authDate: for tests and the docs' examples.
func SignInitData(botToken string, userID int64, firstName string, authDate time.Time) string {
	user, _ := json.Marshal(map[string]any{"id": userID, "first_name": firstName})
	vals := url.Values{"auth_date": {strconv.FormatInt(authDate.Unix(), 10)}, "query_id": {"AAE-test"}, "user": {string(user)}}
	lines := make([]string, 0, len(vals))
	for k, v := range vals {
		lines = append(lines, k+"="+v[0])
	}
	slices.Sort(lines)
	vals.Set("hash", hex.EncodeToString(initDataHash(botToken, strings.Join(lines, "\n"))))
	return vals.Encode()
}
