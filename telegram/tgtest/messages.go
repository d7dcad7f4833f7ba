package tgtest

import (
	"cmp"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxTextLen is Telegram's limit on a message's visible text, in UTF-16 code units.
const MaxTextLen = 4096

// MaxEntities is how many formatting entities Telegram keeps in a message;
// tags past it are accepted and ignored (measured by bot authors, e.g.
// rubenlagus/TelegramBots#854; not in the Bot API documentation).
const MaxEntities = 100

// Message is the current state of a message the bot sent.
type Message struct {
	ChatID    int64
	ID        int
	ThreadID  int  // message_thread_id: forum topic, or reply thread in a plain supergroup
	IsTopic   bool // is_topic_message
	ReplyTo   int  // id of the message it answers, 0 if none
	Text      string
	Entities  []Entity
	Source    string          // the text parameter exactly as sent (the HTML, for parse_mode HTML)
	ParseMode string          // parse_mode as sent; "rich" for sendRichMessage (Source is then its HTML)
	Keyboard  [][]Button      // the inline keyboard; nil when there is none
	Markup    json.RawMessage // the normalised inline keyboard JSON, or the non-inline markup sent with it
	Edits     int             // successful edits of text or markup
	Document  *Document       // the file of a sendDocument (Text is then its caption); see FileData
	Photo     []PhotoSize     // the sizes of a sendPhoto, largest last (Text is then its caption)
	Album     string          // media_group_id of a sendMediaGroup's message
	Voice     *Voice          // the recording of a sendVoice (Text is then its caption); see FileData and OggOpus
}

func (m *storedMsg) public(chatID int64) Message {
	out := Message{
		ChatID: chatID, ID: m.id, ThreadID: m.threadID, IsTopic: m.isTopic, ReplyTo: m.replyTo,
		Text: m.text, Entities: slices.Clone(m.entities), Source: m.source, ParseMode: m.mode, Edits: m.edits,
		Markup: m.other,
	}
	if m.media != nil && m.media.document != nil {
		d := *m.media.document
		out.Document = &d
	}
	if m.media != nil {
		out.Photo, out.Album = slices.Clone(m.media.photo), m.media.album
	}
	if m.media != nil && m.media.voice != nil {
		v := *m.media.voice
		out.Voice = &v
	}
	if m.kb != nil {
		out.Markup = m.kb.canonical
		for _, row := range m.kb.rows {
			out.Keyboard = append(out.Keyboard, slices.Clone(row))
		}
	}
	return out
}

// Messages are the bot's messages in a chat that still exist, oldest first.
func (s *Server) Messages(chatID int64) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs, ok := s.chats[chatID]
	if !ok {
		return nil
	}
	var out []Message
	for _, m := range cs.msgs {
		if m.fromBot {
			out = append(out, m.public(chatID))
		}
	}
	slices.SortFunc(out, func(a, b Message) int { return a.ID - b.ID })
	return out
}

// Message returns one of the bot's messages, false if it never existed or was deleted.
func (s *Server) Message(chatID int64, id int) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cs, ok := s.chats[chatID]; ok {
		if m, ok := cs.msgs[id]; ok && m.fromBot {
			return m.public(chatID), true
		}
	}
	return Message{}, false
}

// Deleted are the ids of messages deleteMessage removed from a chat, in order.
func (s *Server) Deleted(chatID int64) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cs, ok := s.chats[chatID]; ok {
		return slices.Clone(cs.deleted)
	}
	return nil
}

// content is a message text after parsing.
type content struct {
	source, mode, text string
	entities           []Entity
}

// parseText reads text and parse_mode like Telegram: the limits apply to the visible text after parsing.
func (s *Server) parseText(c Call, tooLong string) (content, *apiError) {
	ct, e := s.parseRich(c.Params["text"], c.Params["parse_mode"], c.Params["entities"], MaxTextLen, tooLong)
	if e == nil && strings.TrimSpace(ct.text) == "" {
		return ct, badRequest("message text is empty")
	}
	return ct, e
}

// parseCaption reads caption, parse_mode and caption_entities like parseText; a caption may be empty.
func (s *Server) parseCaption(c Call) (content, *apiError) {
	return s.parseRich(c.Params["caption"], c.Params["parse_mode"], c.Params["caption_entities"], MaxCaptionLen,
		"message caption is too long")
}

// parseRich parses a text or caption: source in mode, or with entities (JSON) when there is no mode.
func (s *Server) parseRich(source, mode, entities string, limit int, tooLong string) (content, *apiError) {
	ct := content{source: source, mode: mode}
	if !utf8.ValidString(ct.source) {
		return ct, badRequest("text must be encoded in UTF-8")
	}
	switch strings.ToLower(ct.mode) {
	case "":
		ct.text = ct.source
		if entities != "" {
			if err := json.Unmarshal([]byte(entities), &ct.entities); err != nil {
				return ct, badRequest("can't parse entities JSON object")
			}
		}
	case "html":
		var err error
		if ct.text, ct.entities, err = parseHTML(ct.source, s.strictHTML); err != nil {
			return ct, badRequest("%s", err.Error())
		}
	case "markdown", "markdownv2":
		ct.text = ct.source // not parsed: the project renders HTML
	default:
		return ct, badRequest("unsupported parse_mode")
	}
	ct.text = strings.TrimRightFunc(ct.text, unicode.IsSpace)
	ct.entities = clampEntities(ct.entities, UTF16Len(ct.text))
	if len(ct.entities) > MaxEntities {
		// Telegram accepts the message but keeps only the first entities:
		// the formatting of the rest is silently lost.
		slices.SortStableFunc(ct.entities, func(a, b Entity) int {
			return cmp.Or(cmp.Compare(a.Offset, b.Offset), cmp.Compare(b.Length, a.Length))
		})
		ct.entities = ct.entities[:MaxEntities]
	}
	if UTF16Len(ct.text) > limit {
		return ct, &apiError{code: 400, description: "Bad Request: " + tooLong}
	}
	return ct, nil
}

// clampEntities cuts entities to the text Telegram keeps after trimming trailing whitespace.
func clampEntities(ents []Entity, n int) []Entity {
	var out []Entity
	for _, e := range ents {
		if e.Offset+e.Length > n {
			e.Length = n - e.Offset
		}
		if e.Length > 0 {
			out = append(out, e)
		}
	}
	return out
}

func (s *Server) sendMessage(c Call) (any, *apiError) {
	cs, e := s.resolveChat(c)
	if e != nil {
		return nil, e
	}
	ct, e := s.parseText(c, "message is too long")
	if e != nil {
		return nil, e
	}
	return s.storeSent(cs, c, ct, nil)
}

// replyTarget reads reply_parameters (or the older reply_to_message_id) and checks the target exists.
func replyTarget(cs *chatState, c Call) (int, *apiError) {
	var rp struct {
		MessageID                int  `json:"message_id"`
		AllowSendingWithoutReply bool `json:"allow_sending_without_reply"`
	}
	if v, ok := c.Params["reply_parameters"]; ok {
		if err := json.Unmarshal([]byte(v), &rp); err != nil {
			return 0, badRequest("can't parse reply parameters JSON object")
		}
	} else {
		rp.MessageID = int(c.Int64("reply_to_message_id"))
		rp.AllowSendingWithoutReply = c.Bool("allow_sending_without_reply")
	}
	if rp.MessageID == 0 {
		return 0, nil
	}
	if _, ok := cs.msgs[rp.MessageID]; !ok {
		if rp.AllowSendingWithoutReply {
			return 0, nil
		}
		return 0, badRequest("message to be replied not found")
	}
	return rp.MessageID, nil
}

// target finds the bot message an edit names.
func (s *Server) target(c Call, notFound string) (*chatState, *storedMsg, *apiError) {
	if c.Params["inline_message_id"] != "" {
		return nil, nil, badRequest("MESSAGE_ID_INVALID") // inline messages are not modelled
	}
	cs, e := s.resolveChat(c)
	if e != nil {
		return nil, nil, e
	}
	id, err := strconv.Atoi(c.Params["message_id"])
	if err != nil || id == 0 {
		return nil, nil, badRequest("message identifier is not specified")
	}
	m, ok := cs.msgs[id]
	if !ok {
		return nil, nil, badRequest("%s", notFound)
	}
	return cs, m, nil
}

var errNotModified = badRequest("message is not modified: specified new message content and reply markup are " +
	"exactly the same as a content and reply markup of the current message")

func (s *Server) editMessageText(c Call) (any, *apiError) {
	cs, m, e := s.target(c, "message to edit not found")
	if e != nil {
		return nil, e
	}
	if !m.fromBot {
		return nil, badRequest("message can't be edited")
	}
	if m.media != nil {
		return nil, badRequest("there is no text in the message to edit")
	}
	ct, e := s.parseText(c, "MESSAGE_TOO_LONG")
	if e != nil {
		return nil, e
	}
	// Like Telegram, an edit without reply_markup takes the inline keyboard away.
	var kb *keyboard
	if v, ok := c.Params["reply_markup"]; ok {
		if kb, _, e = parseMarkup(v, true); e != nil {
			return nil, e
		}
	}
	if ct.text == m.text && reflect.DeepEqual(ct.entities, m.entities) && kb.equal(m.kb) {
		return nil, errNotModified
	}
	m.source, m.mode, m.text, m.entities, m.kb = ct.source, ct.mode, ct.text, ct.entities, kb
	m.editDate = s.now()
	m.edits++
	return s.wire(cs, m, true), nil
}

func (s *Server) editMessageReplyMarkup(c Call) (any, *apiError) {
	cs, m, e := s.target(c, "message to edit not found")
	if e != nil {
		return nil, e
	}
	if !m.fromBot {
		return nil, badRequest("message can't be edited")
	}
	var kb *keyboard
	if v, ok := c.Params["reply_markup"]; ok {
		if kb, _, e = parseMarkup(v, true); e != nil {
			return nil, e
		}
	}
	if kb.equal(m.kb) {
		return nil, errNotModified
	}
	m.kb = kb
	m.editDate = s.now()
	m.edits++
	return s.wire(cs, m, true), nil
}

func (s *Server) deleteMessage(c Call) (any, *apiError) {
	cs, m, e := s.target(c, "message to delete not found")
	if e != nil {
		return nil, e
	}
	delete(cs.msgs, m.id)
	cs.deleted = append(cs.deleted, m.id)
	return true, nil
}

// storeSent stores what the bot sends (a text, or a caption with its media)
// with the reply, thread and keyboard every send method takes alike, and
// answers with the message as Telegram would.
func (s *Server) storeSent(cs *chatState, c Call, ct content, md *media) (any, *apiError) {
	var kb *keyboard
	var other json.RawMessage
	if v, ok := c.Params["reply_markup"]; ok {
		var e *apiError
		if kb, other, e = parseMarkup(v, false); e != nil {
			return nil, e
		}
	}
	replyTo, e := replyTarget(cs, c)
	if e != nil {
		return nil, e
	}
	thread, isTopic := cs.place(int(c.Int64("message_thread_id")), replyTo)
	cs.lastID++
	m := &storedMsg{
		id: cs.lastID, fromBot: true, threadID: thread, isTopic: isTopic, replyTo: replyTo, date: s.now(),
		source: ct.source, mode: ct.mode, text: ct.text, entities: ct.entities, kb: kb, other: other, media: md,
	}
	cs.msgs[m.id] = m
	return s.wire(cs, m, true), nil
}
