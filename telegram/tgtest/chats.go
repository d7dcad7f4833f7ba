package tgtest

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// User is a Telegram user as the Bot API shows it.
type User struct {
	ID           int64  `json:"id"`
	IsBot        bool   `json:"is_bot"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name,omitempty"`
	Username     string `json:"username,omitempty"`
	LanguageCode string `json:"language_code,omitempty"`
}

// Chat is a chat as the Bot API shows it in messages.
type Chat struct {
	ID        int64  `json:"id"`
	Type      string `json:"type"` // private, group, supergroup, channel
	Title     string `json:"title,omitempty"`
	Username  string `json:"username,omitempty"`
	FirstName string `json:"first_name,omitempty"`
	LastName  string `json:"last_name,omitempty"`
	IsForum   bool   `json:"is_forum,omitempty"`
}

// PrivateChat is the one-to-one chat between u and the bot; its id is the user's id.
func PrivateChat(u User) Chat {
	return Chat{ID: u.ID, Type: "private", FirstName: u.FirstName, LastName: u.LastName, Username: u.Username}
}

// Group is a basic group; Telegram gives those small negative ids such as -4001234567.
func Group(id int64, title string) Chat { return Chat{ID: id, Type: "group", Title: title} }

// Supergroup is a supergroup without topics; Telegram gives those ids like -1001234567890.
func Supergroup(id int64, title string) Chat { return Chat{ID: id, Type: "supergroup", Title: title} }

// Forum is a supergroup with topics: messages carry message_thread_id and is_topic_message.
func Forum(id int64, title string) Chat {
	return Chat{ID: id, Type: "supergroup", Title: title, IsForum: true}
}

// chatState is what the fake knows of one chat: its messages, both the bot's and the users'.
type chatState struct {
	chat    Chat
	lastID  int
	msgs    map[int]*storedMsg
	deleted []int
	topics  map[int]string
	drafts  []Draft // accepted sendMessageDraft calls, oldest first
	stops   []Draft // drafts the user stopped (StopDraft), oldest first
	// privateTopics: a private chat of a bot with topics (WithPrivateTopics).
	privateTopics bool
	members       map[int64]membership // members.go: who is in the chat, as far as the fake knows
}

// storedMsg is a message as Telegram holds it.
type storedMsg struct {
	id       int
	fromBot  bool
	from     User
	threadID int
	isTopic  bool
	replyTo  int
	date     time.Time
	editDate time.Time
	source   string // text as sent, before entity parsing
	mode     string // parse_mode as sent
	text     string // visible text
	entities []Entity
	kb       *keyboard
	other    json.RawMessage // a non-inline reply_markup sent with the message
	edits    int
	media    *media // a user's photo or file; text is then its caption
	quote    *textQuote
	// topicCreated is the name of the topic a service message opened.
	topicCreated string
}

// chatLocked registers c or refreshes what is known of it, and returns its state.
func (s *Server) chatLocked(c Chat) *chatState {
	cs, ok := s.chats[c.ID]
	if !ok {
		cs = &chatState{msgs: map[int]*storedMsg{}, topics: map[int]string{}}
		s.chats[c.ID] = cs
	}
	cs.chat = c
	cs.privateTopics = c.Type == "private" && s.privateTopics
	return cs
}

// AddChat makes a chat known, as if the bot had been added to it; sending to an unknown chat fails with
// "chat not found", as it does with Telegram.
func (s *Server) AddChat(c Chat) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chatLocked(c)
	s.notifyLocked()
}

// AddTopic names a forum topic, so its creation message in reply_to_message carries that name.
func (s *Server) AddTopic(chatID int64, threadID int, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cs, ok := s.chats[chatID]; ok {
		cs.topics[threadID] = name
	}
}

// resolveChat finds the chat named by chat_id: a number or an @username.
func (s *Server) resolveChat(c Call) (*chatState, *apiError) {
	v := strings.TrimSpace(c.Params["chat_id"])
	if v == "" {
		return nil, badRequest("chat_id is empty")
	}
	if name, ok := strings.CutPrefix(v, "@"); ok {
		for _, cs := range s.chats {
			if cs.chat.Username != "" && strings.EqualFold(cs.chat.Username, name) {
				return cs, nil
			}
		}
		return nil, badRequest("chat not found")
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil, badRequest("chat not found")
	}
	cs, ok := s.chats[id]
	if !ok {
		return nil, badRequest("chat not found")
	}
	return cs, nil
}

// placeLocked decides the thread of a new message like Telegram: in a forum, a reply lands in the topic of the
// message it answers; in a plain supergroup, a reply belongs to the reply thread rooted at the first message of
// the chain (message_thread_id set, is_topic_message not).
func (cs *chatState) place(threadID, replyTo int) (thread int, isTopic bool) {
	target := cs.msgs[replyTo]
	switch {
	case cs.chat.IsForum || cs.privateTopics:
		if threadID == 0 && target != nil {
			return target.threadID, target.isTopic
		}
		return threadID, threadID != 0
	case cs.chat.Type == "supergroup" && threadID == 0 && target != nil:
		if target.threadID != 0 {
			return target.threadID, false
		}
		return target.id, false
	}
	return threadID, false
}

// wireMessage is a Message object of the Bot API.
type wireMessage struct {
	MessageID         int             `json:"message_id"`
	MessageThreadID   int             `json:"message_thread_id,omitempty"`
	From              *User           `json:"from,omitempty"`
	Date              int64           `json:"date"`
	Chat              Chat            `json:"chat"`
	EditDate          int64           `json:"edit_date,omitempty"`
	IsTopicMessage    bool            `json:"is_topic_message,omitempty"`
	ReplyToMessage    *wireMessage    `json:"reply_to_message,omitempty"`
	Text              string          `json:"text,omitempty"`
	Entities          []Entity        `json:"entities,omitempty"`
	Caption           string          `json:"caption,omitempty"`
	CaptionEntities   []Entity        `json:"caption_entities,omitempty"`
	Photo             []PhotoSize     `json:"photo,omitempty"`
	Document          *Document       `json:"document,omitempty"`
	Voice             *Voice          `json:"voice,omitempty"`
	Audio             *Audio          `json:"audio,omitempty"`
	VideoNote         *VideoNote      `json:"video_note,omitempty"`
	MediaGroupID      string          `json:"media_group_id,omitempty"`
	ReplyMarkup       json.RawMessage `json:"reply_markup,omitempty"`
	ForumTopicCreated *forumTopic     `json:"forum_topic_created,omitempty"`
	Quote             *textQuote      `json:"quote,omitempty"`
}

// textQuote is the part of the replied message a user quoted (Bot API TextQuote).
type textQuote struct {
	Text     string `json:"text"`
	Position int    `json:"position"` // UTF-16 offset in the replied message's text
	IsManual bool   `json:"is_manual,omitempty"`
}

type forumTopic struct {
	Name      string `json:"name"`
	IconColor int    `json:"icon_color"`
}

// wire renders m. Like Telegram, a message in a forum topic that answers nothing in particular carries the
// topic's creation message as reply_to_message; bots must tell that apart from a real reply.
func (s *Server) wire(cs *chatState, m *storedMsg, withReply bool) *wireMessage {
	from := m.from
	if m.fromBot {
		from = s.bot
	}
	w := &wireMessage{
		MessageID: m.id, MessageThreadID: m.threadID, From: &from, Date: m.date.Unix(), Chat: cs.chat,
		IsTopicMessage: m.isTopic, Text: m.text, Entities: m.entities, ReplyMarkup: m.kb.json(),
	}
	if !m.editDate.IsZero() {
		w.EditDate = m.editDate.Unix()
	}
	if m.topicCreated != "" {
		w.ForumTopicCreated = &forumTopic{Name: m.topicCreated, IconColor: topicIconColor}
	}
	if md := m.media; md != nil {
		w.Photo, w.Document, w.MediaGroupID = md.photo, md.document, md.album
		w.Voice, w.Audio, w.VideoNote = md.voice, md.audio, md.videoNote
		w.Caption, w.CaptionEntities, w.Text, w.Entities = w.Text, w.Entities, "", nil
	}
	if !withReply {
		return w
	}
	if target, ok := cs.msgs[m.replyTo]; ok && m.replyTo != 0 {
		w.ReplyToMessage = s.wire(cs, target, false)
		w.Quote = m.quote
	} else if m.isTopic && m.replyTo == 0 {
		name := cs.topics[m.threadID]
		if name == "" {
			name = "Topic " + strconv.Itoa(m.threadID)
		}
		w.ReplyToMessage = &wireMessage{
			MessageID: m.threadID, MessageThreadID: m.threadID, Date: m.date.Unix(), Chat: cs.chat,
			IsTopicMessage: true, ForumTopicCreated: &forumTopic{Name: name, IconColor: topicIconColor},
		}
	}
	return w
}
