package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// recorder watches the fake Bot API from the inside: every call and its
// answer, timed when the answer is decided. "Accepted" below means the fake
// answered ok:true; a 429 is not acceptance.
type recorder struct {
	mu       sync.Mutex
	chatIdx  map[int64]int // Telegram chat id → chat index
	groups   map[int]bool  // chat index → is a group
	turns    map[turnID]*turnRec
	current  map[int]*turnRec    // chat index → its running turn
	sentBy   map[msgRef]*turnRec // the bot's messages → the turn that sent them, for its edits
	methods  map[string]*methodCount
	edits    [2]int // progress edits accepted: private, group
	other    int    // other edits accepted (summaries, prompt outcomes)
	lastEdit map[int64]editSeen
	conns    map[string]bool // client addresses seen: one per TCP connection
	gaps     [2]dist         // between two edits of the same progress message: private, group
	first    time.Time
	last     time.Time // last final accepted
	onPrompt func(chat, msgID int, approveData string)
	burst    bool // the real CLI's answers (burstSaw), not the script's
	// burst: the accepted messages per chat (when), and a hook that sees
	// every accepted message and edit (the quick exchanges wait on it)
	sentAt map[int64][]time.Time
	onText func(chat int64, text string, now time.Time)
}

type methodCount struct{ ok, tooMany, failed int }

type msgRef struct {
	chat int64
	msg  int
}

type editSeen struct {
	msg int
	at  time.Time
}

// turnRec is one turn as the observer saw it.
type turnRec struct {
	id       turnID
	group    bool
	followup bool      // a quick question right after the previous answer
	sent     time.Time // the user's message was queued
	resultAt time.Time // the script emitted TurnCompleted
	askAt    time.Time // the script emitted the ApprovalRequest
	promptAt time.Time // the approval prompt was accepted
	sections map[int]bool
	want     int
	endSeen  bool
	firstAt  time.Time // the first part was accepted
	parts    int       // parts accepted
	finalAt  time.Time // the last part (the one with the footer) was accepted
	done     chan struct{}

	claudeFrom time.Time // the script got the prompt
	textAt     time.Time // the script emitted its first text delta
	textSeen   time.Time // a draft, edit or message showing it was accepted
	pressAt    time.Time // the user pressed Approve
	calls      int       // messages, edits and drafts accepted for this turn
	actions    int       // chat actions accepted while it ran
	reactAt    time.Time // burst: the first call to the chat after the message was accepted
	modelDone  time.Time // burst: the fake model gave its answer (the moment Claude's answer exists)
}

func newRecorder() *recorder {
	return &recorder{chatIdx: map[int64]int{}, groups: map[int]bool{}, turns: map[turnID]*turnRec{},
		current: map[int]*turnRec{}, sentBy: map[msgRef]*turnRec{}, methods: map[string]*methodCount{}, lastEdit: map[int64]editSeen{}, conns: map[string]bool{}, sentAt: map[int64][]time.Time{}}
}

func (r *recorder) addChat(idx int, chatID int64, group bool) {
	r.mu.Lock()
	r.chatIdx[chatID] = idx
	r.groups[idx] = group
	r.mu.Unlock()
}

// begin registers a turn just before the user's message is queued.
func (r *recorder) begin(id turnID, followup bool) *turnRec {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := &turnRec{id: id, group: r.groups[id.chat], followup: followup, sent: time.Now(), sections: map[int]bool{}, done: make(chan struct{})}
	if r.first.IsZero() {
		r.first = t.sent
	}
	r.turns[id] = t
	r.current[id.chat] = t
	return t
}

func (r *recorder) result(id turnID) { r.stamp(id, func(t *turnRec) { t.resultAt = time.Now() }) }
func (r *recorder) asked(id turnID)  { r.stamp(id, func(t *turnRec) { t.askAt = time.Now() }) }

// pressed stamps the press on the chat's running turn.
func (r *recorder) pressed(chat int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t := r.current[chat]; t != nil {
		t.pressAt = time.Now()
	}
}

func (r *recorder) stamp(id turnID, f func(*turnRec)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t := r.turns[id]; t != nil {
		f(t)
	}
}

// middleware times every Bot API call at the moment the fake has answered
// it. With rtt > 0 a call spends half of it on the way in and half on the
// way back, like a call to the real API (long polls excepted).
func (r *recorder) middleware(rtt time.Duration) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			method := path.Base(req.URL.Path)
			delay := rtt / 2
			if method == "getUpdates" {
				delay = 0
			}
			time.Sleep(delay)
			var form url.Values
			if method == "sendMessageDraft" || method == "sendChatAction" {
				form = readForm(req)
			}
			cw := &captureWriter{header: http.Header{}}
			next.ServeHTTP(cw, req)
			r.mu.Lock()
			r.conns[req.RemoteAddr] = true
			r.mu.Unlock()
			r.observe(method, cw.status, cw.body.Bytes(), form, time.Now())
			if cw.status == 0 {
				return // the fake gave no answer (it is closing)
			}
			time.Sleep(delay)
			for k, v := range cw.header {
				w.Header()[k] = v
			}
			w.WriteHeader(cw.status)
			_, _ = w.Write(cw.body.Bytes()) // the bot may have given up; nothing to do then
		})
	}
}

// readForm reads the multipart form of a call the fake answers only with
// true (drafts, chat actions), and leaves the body for the fake.
func readForm(req *http.Request) url.Values {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	req.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return nil
	}
	cp := req.Clone(req.Context())
	cp.Body = io.NopCloser(bytes.NewReader(body))
	if cp.ParseMultipartForm(1<<20) != nil {
		return nil
	}
	return cp.Form
}

// captureWriter holds the fake's answer so it can be read and delayed.
type captureWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (c *captureWriter) Header() http.Header { return c.header }

func (c *captureWriter) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
}

func (c *captureWriter) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.body.Write(p)
}

type wireMsg struct {
	Result struct {
		MessageID int `json:"message_id"`
		Chat      struct {
			ID int64 `json:"id"`
		} `json:"chat"`
		Text        string `json:"text"`
		ReplyMarkup struct {
			InlineKeyboard [][]struct {
				Text         string `json:"text"`
				CallbackData string `json:"callback_data"`
			} `json:"inline_keyboard"`
		} `json:"reply_markup"`
	} `json:"result"`
}

var (
	sectionRE = regexp.MustCompile(`Section (\d+)/(\d+) of c(\d+)-t(\d+)`)
	endRE     = regexp.MustCompile(`End of answer c(\d+)-t(\d+)\.`)
	footerRE  = regexp.MustCompile(`\$\d+\.\d{2,4} · `)
)

const approveLabel = "✅ Approve" // view.LabelApprove

func (r *recorder) observe(method string, status int, body []byte, form url.Values, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	mc := r.methods[method]
	if mc == nil {
		mc = &methodCount{}
		r.methods[method] = mc
	}
	switch {
	case status == http.StatusOK:
		mc.ok++
	case status == http.StatusTooManyRequests:
		mc.tooMany++
		return
	default:
		mc.failed++
		return
	}
	if form != nil {
		id, _ := strconv.ParseInt(form.Get("chat_id"), 10, 64)
		chat, ok := r.chatIdx[id]
		if t := r.current[chat]; ok && t != nil {
			if r.burst {
				r.burstSaw(t, method, form.Get("text"), false, now)
			}
			if method == "sendChatAction" {
				t.actions++
				return
			}
			t.calls++
			r.sawText(t, form.Get("text"), now)
		}
		return
	}
	if method == "sendRichMessage" {
		method = "sendMessage" // an answer with headings or tables goes out rich: a message like any
	}
	if len(body) == 0 || method != "sendMessage" && method != "editMessageText" {
		return
	}
	var m wireMsg
	if err := json.Unmarshal(body, &m); err != nil {
		return
	}
	chat, ok := r.chatIdx[m.Result.Chat.ID]
	if !ok {
		return
	}
	if r.burst {
		if method == "sendMessage" {
			r.sentAt[m.Result.Chat.ID] = append(r.sentAt[m.Result.Chat.ID], now)
		}
		if r.onText != nil {
			r.onText(m.Result.Chat.ID, m.Result.Text, now)
		}
	}
	ref := msgRef{m.Result.Chat.ID, m.Result.MessageID}
	t := r.current[chat]
	if method == "editMessageText" {
		if by := r.sentBy[ref]; by != nil {
			t = by // a summary edit of the previous turn's progress message is that turn's
		}
	} else if t != nil {
		r.sentBy[ref] = t
	}
	if t != nil {
		t.calls++
		r.sawText(t, m.Result.Text, now)
	}
	progress, approve := false, ""
	for _, row := range m.Result.ReplyMarkup.InlineKeyboard {
		for _, b := range row {
			switch {
			case strings.HasPrefix(b.CallbackData, "c:"):
				progress = true
			case strings.HasPrefix(b.CallbackData, "a:") && b.Text == approveLabel:
				approve = b.CallbackData
			}
		}
	}
	if r.burst {
		r.burstSaw(t, method, m.Result.Text, progress, now)
		return
	}
	if method == "editMessageText" {
		if !progress {
			r.other++
			return
		}
		k := 0
		if r.groups[chat] {
			k = 1
		}
		r.edits[k]++
		id := m.Result.Chat.ID
		if prev, ok := r.lastEdit[id]; ok && prev.msg == m.Result.MessageID {
			r.gaps[k] = append(r.gaps[k], now.Sub(prev.at))
		}
		r.lastEdit[id] = editSeen{msg: m.Result.MessageID, at: now}
		return
	}
	if t == nil {
		return
	}
	if approve != "" && !t.askAt.IsZero() && t.promptAt.IsZero() {
		t.promptAt = now
		if r.onPrompt != nil {
			go r.onPrompt(chat, m.Result.MessageID, approve)
		}
	}
	r.finalPart(t, m.Result.Text, now)
}

// sawText stamps the first moment the user could read text the turn
// streamed (its first sentence, or a later one that replaced it before
// Telegram took any).
func (r *recorder) sawText(t *turnRec, text string, now time.Time) {
	if t.textSeen.IsZero() && !t.textAt.IsZero() && (strings.Contains(text, turnMark(t.id)) || answerOf(text, t.id)) {
		t.textSeen = now
	}
}

// finalPart tracks the parts of a final answer: every section heading, the
// end marker, then the footer, which closes the last part.
func (r *recorder) finalPart(t *turnRec, text string, now time.Time) {
	part := false
	for _, s := range sectionRE.FindAllStringSubmatch(text, -1) {
		if atoi(s[3]) != t.id.chat || atoi(s[4]) != t.id.turn {
			continue
		}
		part = true
		t.sections[atoi(s[1])] = true
		t.want = atoi(s[2])
	}
	if e := endRE.FindStringSubmatch(text); e != nil && atoi(e[1]) == t.id.chat && atoi(e[2]) == t.id.turn {
		part = true
		t.endSeen = true
	}
	footer := t.endSeen && t.finalAt.IsZero() && footerRE.MatchString(text)
	if part || footer {
		t.parts++
		if t.firstAt.IsZero() {
			t.firstAt = now
		}
	}
	if footer {
		t.finalAt = now
		r.last = now
		close(t.done)
	}
}

// answerOf says text shows part of the turn's answer (a section heading).
func answerOf(text string, id turnID) bool {
	for _, s := range sectionRE.FindAllStringSubmatch(text, -1) {
		if atoi(s[3]) == id.chat && atoi(s[4]) == id.turn {
			return true
		}
	}
	return false
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// complete reports whether every part of the turn's final was accepted.
func (t *turnRec) complete() bool {
	if t.finalAt.IsZero() || t.want == 0 || len(t.sections) != t.want {
		return false
	}
	return true
}
