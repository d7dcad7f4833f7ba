package tgtest

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
)

// MessageOption shapes a message a user sends.
type MessageOption func(*userMessage)

type userMessage struct {
	threadID int
	replyTo  int
	entities []Entity
	explicit bool   // entities given, not detected
	size     int    // reported file size (SendPhoto, SendDocument); 0: the data's
	album    string // media_group_id (SendPhoto, SendDocument)
	quote    string // the part of the replied message the user quoted
}

// InThread sends the message into a forum topic (message_thread_id).
func InThread(threadID int) MessageOption { return func(m *userMessage) { m.threadID = threadID } }

// ReplyTo makes the message a reply to messageID of the same chat.
func ReplyTo(messageID int) MessageOption { return func(m *userMessage) { m.replyTo = messageID } }

// Quoting makes the message a reply to messageID that quotes part of it, as a user does by selecting text
// before replying; quote must occur in that message's text (or caption), as Telegram's apps ensure.
func Quoting(messageID int, quote string) MessageOption {
	return func(m *userMessage) { m.replyTo, m.quote = messageID, quote }
}

// WithEntities replaces the entities the fake would detect (bot commands and @mentions).
func WithEntities(ents ...Entity) MessageOption {
	return func(m *userMessage) { m.entities, m.explicit = ents, true }
}

// SendMessage has from write text in chat and queues the "message" update. Entities for /commands (with an
// optional @botname) and @mentions are detected as Telegram does. It returns the new message's id.
func (s *Server) SendMessage(from User, chat Chat, text string, opts ...MessageOption) int {
	s.tb.Helper()
	return s.userMessage(from, chat, text, opts, nil)
}

// userMessage stores a message from a user and queues its update. build,
// when set, attaches a photo or file (text is then its caption); it runs
// under the lock, after the options were applied.
func (s *Server) userMessage(from User, chat Chat, text string, opts []MessageOption, build func(*userMessage) media) int {
	s.tb.Helper()
	um := userMessage{}
	for _, o := range opts {
		o(&um)
	}
	if !um.explicit {
		um.entities = detectEntities(text)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.chatLocked(chat)
	s.wroteLocked(cs, from)
	if _, ok := cs.msgs[um.replyTo]; um.replyTo != 0 && !ok {
		s.tb.Errorf("tgtest: message %d to reply to is not in chat %d", um.replyTo, chat.ID)
		um.replyTo = 0
	}
	var quote *textQuote
	if um.quote != "" {
		target := cs.msgs[um.replyTo]
		at := -1
		if target != nil {
			at = strings.Index(target.text, um.quote)
		}
		if at < 0 {
			s.tb.Errorf("tgtest: the quote %q is not in message %d of chat %d", um.quote, um.replyTo, chat.ID)
		} else {
			quote = &textQuote{Text: um.quote, Position: len(utf16.Encode([]rune(target.text[:at]))), IsManual: true}
		}
	}
	thread, isTopic := cs.place(um.threadID, um.replyTo)
	cs.lastID++
	m := &storedMsg{
		id: cs.lastID, from: from, threadID: thread, isTopic: isTopic, replyTo: um.replyTo, date: s.now(),
		source: text, text: text, entities: um.entities, quote: quote,
	}
	if build != nil {
		md := build(&um)
		md.album = um.album
		m.media = &md
	}
	cs.msgs[m.id] = m
	s.addUpdateLocked("message", s.wire(cs, m, true))
	s.notifyLocked()
	return m.id
}

// EditMessage has from edit their message msgID in chat to text (a caption
// for a photo or file) and queues the "edited_message" update, as Telegram
// does. It reports whether the message exists and is from.
func (s *Server) EditMessage(from User, chat Chat, msgID int, text string) bool {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.chatLocked(chat)
	m, ok := cs.msgs[msgID]
	if !ok || m.fromBot || m.from.ID != from.ID {
		return false
	}
	m.source, m.text, m.entities = text, text, detectEntities(text)
	m.editDate = s.now()
	s.addUpdateLocked("edited_message", s.wire(cs, m, true))
	s.notifyLocked()
	return true
}

// detectEntities finds bot_command and mention entities the way Telegram clients see them: a command is '/'
// plus up to 64 word characters with an optional @username, a mention '@' plus 5–32 word characters, both at
// the start of the text or after a character that is not a word character.
func detectEntities(text string) []Entity {
	rs := []rune(text)
	var ents []Entity
	offset := 0 // UTF-16 offset of rs[i]
	for i := 0; i < len(rs); {
		prevOK := i == 0 || !isWordRune(rs[i-1]) && rs[i-1] != '/' && rs[i-1] != '@'
		if prevOK && (rs[i] == '/' || rs[i] == '@') {
			j := i + 1
			for j < len(rs) && isWordRune(rs[j]) {
				j++
			}
			n := j - i - 1
			switch {
			case rs[i] == '/' && n >= 1 && n <= 64:
				if j < len(rs) && rs[j] == '@' {
					k := j + 1
					for k < len(rs) && isWordRune(rs[k]) {
						k++
					}
					if k-j-1 >= 3 {
						j = k
					}
				}
				ents = append(ents, Entity{Type: "bot_command", Offset: offset, Length: j - i})
			case rs[i] == '@' && n >= 5 && n <= 32:
				ents = append(ents, Entity{Type: "mention", Offset: offset, Length: j - i})
			default:
				j = i + 1
			}
			offset += j - i // all ASCII: one UTF-16 unit each
			i = j
			continue
		}
		offset += utf16Len(rs[i])
		i++
	}
	return ents
}

func isWordRune(r rune) bool { return r == '_' || r < 128 && isAlnum(byte(r)) }

// CallbackAnswer is the bot's answerCallbackQuery for one button press.
type CallbackAnswer struct {
	ID        string
	ChatID    int64
	MessageID int
	Data      string
	Text      string
	ShowAlert bool
	URL       string
	CacheTime int
	Time      time.Time
}

// CallbackTimeout is how long a button press can be answered. Telegram does
// not publish it; a press answered some 10-20 s late is refused as "query is
// too old", so the fake refuses after 15 s (of its clock).
const CallbackTimeout = 15 * time.Second

type callbackQuery struct {
	chatID    int64
	messageID int
	data      string
	answered  bool
	at        time.Time // when the user pressed
}

type callbacks struct {
	next    int64
	queries map[string]*callbackQuery
	answers []CallbackAnswer
}

func (c *callbacks) init() {
	c.next = 4_300_000_000_000_000_001
	c.queries = map[string]*callbackQuery{}
}

// PressButton has from press the inline button with callback_data data under the bot's message messageID and
// queues the "callback_query" update. The button must be on the message now (else the test fails: a user
// cannot press it); use SendCallbackQuery for a stale press. It returns the callback query id.
func (s *Server) PressButton(from User, chat Chat, messageID int, data string) string {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := s.chatLocked(chat)
	if m, ok := cs.msgs[messageID]; !ok || !m.fromBot || !hasButton(m.kb, data) {
		s.tb.Errorf("tgtest: PressButton: no button with callback_data %q on bot message %d in chat %d", data, messageID, chat.ID)
		return ""
	}
	return s.callbackLocked(from, cs, messageID, data)
}

// SendCallbackQuery queues a button press without checking the button exists: a press from a client that still
// shows an older keyboard. A message that no longer exists arrives as an inaccessible message (date 0).
func (s *Server) SendCallbackQuery(from User, chat Chat, messageID int, data string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.callbackLocked(from, s.chatLocked(chat), messageID, data)
}

func hasButton(kb *keyboard, data string) bool {
	if kb == nil {
		return false
	}
	for _, row := range kb.rows {
		for _, b := range row {
			if b.CallbackData == data {
				return true
			}
		}
	}
	return false
}

func (s *Server) callbackLocked(from User, cs *chatState, messageID int, data string) string {
	id := strconv.FormatInt(s.cbs.next, 10)
	s.cbs.next++
	s.cbs.queries[id] = &callbackQuery{chatID: cs.chat.ID, messageID: messageID, data: data, at: s.now()}
	var msg any = struct {
		Chat      Chat  `json:"chat"`
		MessageID int   `json:"message_id"`
		Date      int64 `json:"date"`
	}{cs.chat, messageID, 0}
	if m, ok := cs.msgs[messageID]; ok {
		msg = s.wire(cs, m, true)
	}
	s.addUpdateLocked("callback_query", map[string]any{
		"id":            id,
		"from":          from,
		"message":       msg,
		"chat_instance": strconv.FormatInt(cs.chat.ID*-7919+int64(s.bot.ID%1000), 10),
		"data":          data,
	})
	return id
}

func (s *Server) answerCallbackQuery(c Call) (any, *apiError) {
	id := c.Params["callback_query_id"]
	q, ok := s.cbs.queries[id]
	if !ok || q.answered || c.Time.Sub(q.at) > CallbackTimeout {
		return nil, badRequest("query is too old and response timeout expired or query ID is invalid")
	}
	text := c.Params["text"]
	if UTF16Len(text) > 200 {
		return nil, badRequest("MESSAGE_TOO_LONG")
	}
	q.answered = true
	s.cbs.answers = append(s.cbs.answers, CallbackAnswer{
		ID: id, ChatID: q.chatID, MessageID: q.messageID, Data: q.data, Text: text,
		ShowAlert: c.Bool("show_alert"), URL: c.Params["url"], CacheTime: int(c.Int64("cache_time")), Time: c.Time,
	})
	return true, nil
}

// CallbackAnswers are the bot's answers to button presses, in the order it gave them.
func (s *Server) CallbackAnswers() []CallbackAnswer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]CallbackAnswer(nil), s.cbs.answers...)
}

// CallbackAnswer returns the answer to one press, false if the bot has not answered it.
func (s *Server) CallbackAnswer(id string) (CallbackAnswer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.cbs.answers {
		if a.ID == id {
			return a, true
		}
	}
	return CallbackAnswer{}, false
}
