package view

import (
	"strconv"
	"strings"
)

// Approver is a user [telegram] approver_user_ids names; Name is how the
// bot last saw them (@username or their name), "" before it saw them.
type Approver struct {
	ID   int64
	Name string
}

// maxToast bounds a toast: Telegram shows up to 200 characters.
const maxToast = 200

// ApproversLine is the line a prompt in a group ends with when only some
// users may answer it, e.g. "🔐 Only @ada or Bob may answer." A user the
// bot has not seen yet is a mention by id (tg://user?id=…), which Telegram
// shows as their name where their privacy settings let it.
func ApproversLine(as []Approver) string {
	if len(as) == 0 {
		return ""
	}
	names := make([]string, len(as))
	for i, a := range as {
		if a.Name != "" {
			names[i] = esc(clip(oneLine(a.Name), 64))
		} else {
			id := strconv.FormatInt(a.ID, 10)
			names[i] = `<a href="tg://user?id=` + id + `">user ` + id + `</a>`
		}
	}
	return "<i>🔐 Only " + orList(names) + " may answer.</i>"
}

// ToastNotApprover answers a press on a prompt's button in a group from an
// allowed user who is not among the approvers (plain text, like every toast).
func ToastNotApprover(as []Approver) string {
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = oneLine(a.Name)
		if names[i] == "" {
			names[i] = "user " + strconv.FormatInt(a.ID, 10)
		}
	}
	return clip("Only "+orList(names)+" may answer this prompt", maxToast)
}

// orList joins names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
