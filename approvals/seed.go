package approvals

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
)

// seededToken is the token of one action of a request (of its page-th
// question), derived with seed: the n-th candidate (n > 0 when an earlier one is taken). It has the
// shape of package token's (96 bits, 16 URL-safe characters).
func seededToken(seed []byte, k pendingKey, action ActionKind, option, page, n int) string {
	m := hmac.New(sha256.New, seed)
	for _, part := range []string{k.session, k.request, string(action), strconv.Itoa(option), strconv.Itoa(page), strconv.Itoa(n)} {
		m.Write([]byte(strconv.Itoa(len(part))))
		m.Write([]byte{':'})
		m.Write([]byte(part))
	}
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:12])
}
