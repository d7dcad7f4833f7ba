package view

import (
	"strconv"
	"strings"
)

// HostItem is one machine in /host's list.
type HostItem struct {
	Name string
	// Err is why the machine cannot be reached now ("" when it can).
	Err string
	// ClaudeVersion is the CLI's version there ("" when not known).
	ClaudeVersion string
	Live, MaxLive int    // live Claude processes there, and the cap
	WorkDir       string // where a chat moved there starts
	Current       bool   // this chat works there
	Default       bool   // [claude] host
}

// HostList answers /host: every machine, whether it can be reached, its
// CLI, its live sessions; the chat's own marked.
func HostList(items []HostItem) string {
	var b strings.Builder
	b.WriteString("🖥 <b>Hosts</b>")
	for _, it := range items {
		mark := "▫️"
		if it.Current {
			mark = "▶️"
		}
		b.WriteString("\n\n" + mark + " <b>" + escHead(oneLine(it.Name), 100) + "</b>")
		var tags []string
		if it.Current {
			tags = append(tags, "this chat")
		}
		if it.Default {
			tags = append(tags, "default")
		}
		if len(tags) > 0 {
			b.WriteString(" <i>(" + strings.Join(tags, ", ") + ")</i>")
		}
		if it.Err != "" {
			b.WriteString("\n❌ unreachable: " + escHead(oneLine(it.Err), 400))
		} else {
			v := oneLine(it.ClaudeVersion)
			if v == "" {
				v = "version not known"
			}
			b.WriteString("\n✅ reachable · Claude Code " + escHead(v, 100))
		}
		b.WriteString("\n" + plural(it.Live, "live session", "live sessions") + " of " + strconv.Itoa(it.MaxLive))
		if d := oneLine(it.WorkDir); d != "" {
			b.WriteString(" · <code>" + escHead(d, 300) + "</code>")
		}
	}
	b.WriteString("\n\n/host NAME moves this chat there (its next message starts a session there).")
	return fit(b.String())
}

// HostMoved answers /host NAME: the chat works there from its next
// message, in dir; warn is why the machine may not answer ("" when it did).
func HostMoved(name, dir, warn string) string {
	s := "🖥 This chat now works on <b>" + escHead(oneLine(name), 100) + "</b>, in <code>" + escHead(oneLine(dir), 300) +
		"</code>. Your next message starts a fresh Claude session there."
	if warn != "" {
		s += "\n⚠️ It does not answer right now: " + escHead(oneLine(warn), 400)
	}
	return fit(s)
}

// HostUnchanged answers /host NAME for the chat's own machine.
func HostUnchanged(name string) string {
	return fit("🖥 This chat already works on <b>" + escHead(oneLine(name), 100) + "</b>. Unchanged.")
}

// HostUnknown answers /host with a name no machine has.
func HostUnknown(name string, names []string) string {
	return fit("There is no host " + escHead(strconv.Quote(name), 100) + ". The hosts: " +
		escHead(strings.Join(names, ", "), 600) + " ([hosts.NAME] in the config adds one).")
}

// HostBusy answers /host while a turn runs or waits.
const HostBusy = "A turn is running or queued in this chat: wait for it, or /cancel it, then change the host."

// HostUnreachable tells the chat that its machine could not be reached when
// its message was to run: the message is kept for /retry. others are the
// machines it could move to.
func HostUnreachable(name, detail string, others []string) TurnError {
	name = oneLine(name)
	hint := "Check that the machine is up and that ssh reaches it from the bot's machine " +
		"(ssh " + name + ", or the address in [hosts." + name + "]). Your message is kept: /retry sends it again"
	if len(others) > 0 {
		hint += ", or /host " + others[0] + " moves this chat first"
	}
	return TurnError{What: name + " did not answer", Detail: detail, Hint: hint + "."}
}

// RetryNone answers /retry when no message waits for it.
const RetryNone = "No message of this chat is waiting to be sent again."

// RetryQueued answers /retry: n kept messages run again.
func RetryQueued(n int) string {
	return "🔁 Sending " + plural(n, "kept message", "kept messages") + " again."
}
