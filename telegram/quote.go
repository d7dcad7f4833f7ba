package telegram

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/prefs"
)

// Replies carry their context: a message that replies to another (one of
// Claude's answers, a progress line, a file, the user's own earlier
// message) brings the replied text with it, or only the part the user
// quoted, marked as a quote and cut to maxQuote; a replied photo or file
// comes along as if it were attached. Without this, "why?" in reply to
// the third paragraph of an answer reaches Claude as "why?".

// maxQuote bounds the replied text sent to Claude, in characters: a whole
// Telegram message (4,096 UTF-16 units) almost always fits, a long quote
// costs about a thousand tokens at most.
const maxQuote = 4000

// replyContext is what m replies to: the marked quote for Claude ("" when
// there is none) and the replied message's photo or file.
func (b *Bot) replyContext(m *models.Message) (string, []prefs.File) {
	r := m.ReplyToMessage
	if r != nil && r.ForumTopicCreated != nil {
		// In a forum topic every message "replies" to the topic's first
		// message: that is no reply the user made.
		r = nil
	}
	var text, who string
	var files []prefs.File
	switch {
	case r != nil:
		text, who = r.Text, b.author(r.From, m.From)
		if text == "" {
			text = r.Caption
		}
		own, _ := attachments(r)
		for _, f := range own {
			// Recordings are heard, not attached; a file too big to
			// download is left behind rather than refuse the prompt.
			if (f.Kind == "photo" || f.Kind == "document") && f.Size <= maxDownload {
				files = append(files, f)
			}
		}
	case m.ExternalReply != nil:
		who = "a message from another chat"
	default:
		return "", nil
	}
	quoted := m.Quote != nil && strings.TrimSpace(m.Quote.Text) != ""
	if quoted {
		text = m.Quote.Text
	}
	if len(files) > 0 && strings.TrimSpace(text) == "" {
		return "[The user's message above is a reply in Telegram to " + who + ", a file without text: it is among the files above.]", files
	}
	return markQuote(who, text, quoted), files
}

// author names the sender of a replied message for Claude.
func (b *Bot) author(from, user *models.User) string {
	switch {
	case from == nil:
		return "a message"
	case from.ID == b.me.ID:
		return "a message of this bot (your answer, or the bot's own status or notice)"
	case user != nil && from.ID == user.ID:
		return "their own earlier message"
	case from.IsBot:
		return "a message from the bot " + quotedName(from)
	}
	return "a message from " + quotedName(from) + " (Telegram user " + strconv.FormatInt(from.ID, 10) + ")"
}

// quotedName is a sender's name for the quote's marker line (inNote).
func quotedName(u *models.User) string { return inNote(displayName(u), 64) }

// inNote makes text someone else wrote (a sender's name, a file's name or
// type) safe inside one of the bot's bracketed notes to Claude, which it
// must not be able to end: brackets become parentheses, line breaks and
// runs of spaces one space, and it is cut to max characters.
func inNote(s string, max int) string {
	s = strings.NewReplacer("[", "(", "]", ")").Replace(s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return s
}

// markQuote renders the replied text as a block Claude reads as a quote:
// every line behind "> ", so nothing in it can pass for the user's own
// words or the bot's notes. Blank text gives "" (a reply to a photo
// without caption brings the photo alone).
func markQuote(who, text string, quoted bool) string {
	text = strings.TrimSpace(strings.ToValidUTF8(text, "\uFFFD"))
	if text == "" {
		return ""
	}
	cut := ""
	if utf8.RuneCountInString(text) > maxQuote {
		text = string([]rune(text)[:maxQuote])
		cut = ", cut to its first " + strconv.Itoa(maxQuote) + " characters"
	}
	what := "Its text"
	if quoted {
		what = "The part they quoted"
	}
	lines := splitLines(text)
	for i, l := range lines {
		lines[i] = "> " + l
	}
	return "[The user's message above is a reply in Telegram to " + who + ". " + what + cut + ":]\n" +
		strings.Join(lines, "\n")
}

// lineBreak matches every line break Unicode knows (CR LF as one): a
// reader, Claude included, may start a new line at any of them, so a
// quote that split on "\n" alone let text after a lone CR, NEL, U+2028
// or U+2029 read as the user's own words.
var lineBreak = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\v", "\n", "\f", "\n",
	"\u0085", "\n", "\u2028", "\n", "\u2029", "\n")

// splitLines cuts s at every line break lineBreak knows.
func splitLines(s string) []string {
	return strings.Split(lineBreak.Replace(s), "\n")
}
