package view

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/untether/untether/human"
)

// SessionItem is one Claude session of a chat as /sessions lists it.
type SessionItem struct {
	Title   string // the prompt that started it
	WorkDir string
	When    time.Time // started (current) or ended (earlier ones)
	Data    string    // callback data of its button; "" for the current one
}

// SessionsText lists the chat's current session and the earlier ones it
// can go back to (numbered like their buttons). now dates them.
func SessionsText(current *SessionItem, earlier []SessionItem, now time.Time) string {
	out := "🗂 <b>Sessions of this chat</b>\n\n"
	if current != nil {
		out += "Current: " + sessionLine(*current, "started", now) + "\n"
	} else {
		out += "Current: <i>none (your next message starts one)</i>\n"
	}
	if len(earlier) == 0 {
		return fit(out + "\nNo earlier sessions yet: /new starts a fresh one and keeps this one here.")
	}
	out += "\n"
	for i, s := range earlier {
		out += strconv.Itoa(i+1) + ". " + sessionLine(s, "ended", now) + "\n"
	}
	return fit(out + "\nTap one to continue it (your next message resumes it); /new starts a fresh one.")
}

func sessionLine(s SessionItem, verb string, now time.Time) string {
	title := oneLine(s.Title)
	if title == "" {
		title = "(untitled)"
	}
	line := "<b>" + escHead(title, 80) + "</b>"
	if d := oneLine(s.WorkDir); d != "" {
		line += " · <code>" + escHead(d, 120) + "</code>"
	}
	if !s.When.IsZero() {
		line += " · " + verb + " " + ago(now.Sub(s.When))
	}
	return line
}

func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < 48*time.Hour:
		return human.Duration(d) + " ago"
	default:
		return strconv.Itoa(int(d.Hours()/24)) + " days ago"
	}
}

// SessionsKeyboard has one button per earlier session, numbered as listed.
func SessionsKeyboard(earlier []SessionItem) Keyboard {
	var kb Keyboard
	for i, s := range earlier {
		title := oneLine(s.Title)
		if title == "" {
			title = "(untitled)"
		}
		if utf8.RuneCountInString(title) > 32 {
			title = string([]rune(title)[:31]) + "…"
		}
		kb = append(kb, []Button{{Text: "↩ " + strconv.Itoa(i+1) + ". " + title, Data: s.Data}})
	}
	return kb
}

// SessionSwitched is the list message once a session was chosen.
func SessionSwitched(s SessionItem, by string) string {
	out := "↩ Switched to <b>" + escHead(oneLine(firstNonEmpty(s.Title, "(untitled)")), 80) + "</b>"
	if d := oneLine(s.WorkDir); d != "" {
		out += " in <code>" + escHead(d, 120) + "</code>"
	}
	if by = oneLine(by); by != "" {
		out += " by " + escHead(by, 60)
	}
	return fit(out + ". Your next message continues it.")
}

// SessionsUnreadable answers /sessions when the state file could not be
// read; err is the error's text (redacted), shown as text.
func SessionsUnreadable(err string) string {
	return fit("Could not read the sessions: " + esc(err))
}
