package view

import (
	"strconv"
	"strings"

	"github.com/untether/untether/chat"
)

// Where a setting comes from, as /status and the command replies say it.
const (
	SourceChat   = chat.SourceChat   // the chat set it (/model, /planmode, ...)
	SourceConfig = chat.SourceConfig // the config file's value
)

// Status is what /status shows. Sources say where a setting comes from:
// SourceChat or SourceConfig.
type Status struct {
	SessionID      string
	Model          string
	ModelSource    string
	PermissionMode string
	PlanMode       string
	PlanModeSource string
	Verbose        bool
	VerboseSource  string
	Stream         string
	StreamSource   string
	Queued         int
	ChatCostUSD    float64 // what this chat's turns cost, all its sessions
	Live           bool    // a Claude process is running for the session
	Held           bool    // that process is held: it survives a restart of the bot
	Running        bool    // a turn is in progress
	WorkDir        string
	WorkDirSource  string
	SpentToday     float64 // all chats
	DailyBudget    float64 // 0: no limit
	Version        string  // untether's, as its build info says
	ClaudeVersion  string  // what `claude --version` said when the bot started
	// Desk is the shell command that continues the session at the desk
	// (cd DIR && claude --resume ID); "" leaves the line out.
	Desk string
	// Speak is /speak's mode, "" when no speech backend is configured
	// (the line is left out).
	Speak, SpeakSource string
	// Host names the machine the chat works on, with where the choice
	// comes from; "" (only the bot's own machine exists) leaves it out.
	Host, HostSource string
	// Engine names the agent the chat runs, with where the choice comes
	// from; "" (the bot offers one engine) leaves it out.
	Engine, EngineSource string
}

const maxStatusValueUnits = 300

// StatusText renders /status.
func StatusText(s Status) string {
	var lines []string
	lines = append(lines, "📊 <b>Status</b>")
	state := "idle"
	switch {
	case s.Running:
		state = "working on a turn"
	case s.Live && s.Engine != "":
		state = "idle, " + EngineTitle(s.Engine) + " process running"
	case s.Live:
		state = "idle, Claude process running"
	}
	if s.Live && s.Held {
		state += " (held, attached: it survives a restart of the bot)"
	}
	lines = append(lines, "State: "+state)
	if s.Queued > 0 {
		lines = append(lines, "Queued: "+plural(s.Queued, "message", "messages"))
	}
	if id := oneLine(s.SessionID); id != "" {
		lines = append(lines, "Session: <code>"+escHead(id, maxStatusValueUnits)+"</code>")
	} else {
		lines = append(lines, "Session: <i>none yet (next message starts one)</i>")
	}
	lines = append(lines,
		"Model: "+setting(s.Model, "default", s.ModelSource),
		"Permission mode: "+setting(s.PermissionMode, "default", ""),
		"Plan mode: "+setting(s.PlanMode, "off", s.PlanModeSource),
		"Verbose: "+setting(onOff(s.Verbose), "", s.VerboseSource),
		"Streaming: "+setting(s.Stream, StreamDrafts, s.StreamSource),
	)
	if s.Speak != "" {
		lines = append(lines, "Voice replies: "+setting(s.Speak, "", s.SpeakSource))
	}
	if s.ChatCostUSD > 0 {
		lines = append(lines, "Spent in this chat: "+Dollars(s.ChatCostUSD))
	}
	if s.SpentToday > 0 || s.DailyBudget > 0 {
		line := "Spent today (all chats): " + Dollars(s.SpentToday)
		if s.DailyBudget > 0 {
			line += " of " + Dollars(s.DailyBudget)
		}
		lines = append(lines, line)
	}
	if h := oneLine(s.Host); h != "" {
		lines = append(lines, "Host: "+setting(h, "", s.HostSource))
	}
	if e := oneLine(s.Engine); e != "" {
		lines = append(lines, "Engine: "+setting(e, "", s.EngineSource))
	}
	if d := oneLine(s.WorkDir); d != "" {
		line := "Directory: <code>" + escHead(d, maxStatusValueUnits) + "</code>"
		if src := oneLine(s.WorkDirSource); src != "" {
			line += " <i>(" + escHead(src, 100) + ")</i>"
		}
		lines = append(lines, line)
	}
	if d := oneLine(s.Desk); d != "" {
		lines = append(lines, "At the desk: <code>"+escHead(d, 600)+"</code>")
	}
	if v := versions(s.Version, s.ClaudeVersion); v != "" {
		lines = append(lines, "Versions: "+v)
	}
	return fit(strings.Join(lines, "\n"))
}

// versions is "untether v1.2.0 · Claude Code 2.1.330", either part left
// out when unknown.
func versions(untether, claude string) string {
	var parts []string
	if v := oneLine(untether); v != "" {
		parts = append(parts, "untether "+escHead(v, 100))
	}
	if v := oneLine(claude); v != "" {
		parts = append(parts, "Claude Code "+escHead(v, 100))
	}
	return strings.Join(parts, " · ")
}

// setting renders a value (or its default) and, in italics, its source.
func setting(value, def, source string) string {
	v := oneLine(value)
	if v == "" {
		v = def
	}
	out := "<b>" + escHead(v, maxStatusValueUnits) + "</b>"
	if src := oneLine(source); src != "" {
		out += " <i>(" + escHead(src, 60) + ")</i>"
	}
	return out
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// HelpText renders /help. In groups it also says how to address the bot;
// botUsername is without "@" (a leading "@" is tolerated).
func HelpText(inGroup bool, botUsername string) string {
	bot := strings.TrimPrefix(oneLine(botUsername), "@")
	var b strings.Builder
	b.WriteString("<b>untether</b> runs Claude Code on your machine. Send a message and Claude works on it; " +
		"you see its progress, approve what it asks for, and get the answer here.\n\n")
	b.WriteString("<b>Commands</b>\n")
	b.WriteString(helpLines())
	b.WriteString("\nOther commands (/compact, /init, your own from .claude/commands) go to Claude Code.\n")
	if inGroup {
		b.WriteString("\n<b>In this group</b>\n")
		if bot != "" {
			at := "@" + escHead(bot, 100)
			b.WriteString("Mention " + at + ", reply to one of its messages, or use a command (e.g. /status@" + escHead(bot, 100) + "). ")
		} else {
			b.WriteString("Mention the bot, reply to one of its messages, or use a command. ")
		}
		b.WriteString("Other messages are ignored.\n")
	}
	return fit(strings.TrimRight(b.String(), "\n"))
}

// Refusal answers a user who is not allowed to use the bot.
func Refusal(userID int64) string {
	return "This bot is private. Your Telegram user id is <code>" + strconv.FormatInt(userID, 10) +
		"</code> — ask the owner to add it to allowed_user_ids."
}
