package view

import (
	"html"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/untether/untether/human"
)

// SessionItem is one session of a chat as /sessions lists it.
type SessionItem struct {
	Title   string    // the prompt that started it
	WorkDir string    // shown unless the list is of one directory
	When    time.Time // started (current), ended or last written (earlier ones)
	Turns   int       // the prompts sent in it; 0 hides the count
	// Outside says it was not started from this chat: in a terminal at
	// the desk, most likely.
	Outside bool
	Data    string // callback data of its button; "" for the current one
}

// Sessions is what /sessions lists.
type Sessions struct {
	Current *SessionItem
	// Dir is the chat's working directory and Here the sessions its
	// engine keeps for it (the engine's own store: started here or at
	// the desk), newest first. Dir "" leaves the section out.
	Dir  string
	Here []SessionItem
	// Engine names the engine whose store Here is ("claude", "codex").
	Engine string
	// Earlier are the chat's own earlier sessions not listed in Here.
	Earlier []SessionItem
	Now     time.Time
}

// Items are the sessions with a button, in the order they are numbered.
func (s Sessions) Items() []SessionItem {
	return append(append([]SessionItem{}, s.Here...), s.Earlier...)
}

// SessionsText lists the chat's current session and the ones it can go
// to (numbered like their buttons).
func SessionsText(s Sessions) string {
	out := "🗂 <b>Sessions of this chat</b>\n\n"
	if s.Current != nil {
		out += "Current: " + sessionLine(*s.Current, "started", s.Now) + "\n"
	} else {
		out += "Current: <i>none (your next message starts one)</i>\n"
	}
	n := 0
	if s.Dir != "" && len(s.Here) > 0 {
		out += "\nIn <code>" + escHead(oneLine(s.Dir), 200) + "</code> (" + html.EscapeString(storeOwner(s.Engine)) + "'s sessions, newest first):\n"
		for _, it := range s.Here {
			n++
			it.WorkDir = ""
			out += strconv.Itoa(n) + ". " + sessionLine(it, "", s.Now) + "\n"
		}
	}
	if len(s.Earlier) > 0 {
		if s.Dir != "" {
			out += "\nEarlier in this chat:\n"
		} else {
			out += "\n"
		}
		for _, it := range s.Earlier {
			n++
			out += strconv.Itoa(n) + ". " + sessionLine(it, "ended", s.Now) + "\n"
		}
	}
	if n == 0 {
		return fit(out + "\nNo earlier sessions yet: /new starts a fresh one and keeps this one here.")
	}
	return fit(out + "\nTap one to continue it (your next message resumes it); /new starts a fresh one.")
}

// storeOwner is whose store Here is; Claude Code's when unnamed.
func storeOwner(engine string) string {
	if engine == "" {
		return EngineTitle("claude")
	}
	return EngineTitle(engine)
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
	if s.Turns > 0 {
		line += " · " + plural(s.Turns, "turn", "turns")
	}
	if !s.When.IsZero() {
		if verb != "" {
			line += " · " + verb + " " + ago(now.Sub(s.When))
		} else {
			line += " · " + ago(now.Sub(s.When))
		}
	}
	if s.Outside {
		line += " · 🖥 <i>not from this chat</i>"
	}
	return line
}

// Ago says how long ago something was: "just now", "5 minutes ago".
func Ago(d time.Duration) string { return ago(d) }

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
