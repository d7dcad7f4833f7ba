package tgtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// update is a queued update, already rendered with its update_id.
type update struct {
	id   int64
	kind string
	json json.RawMessage
}

// updateQueue is Telegram's per-bot update queue: updates stay until a getUpdates offset confirms them.
type updateQueue struct {
	nextID  int64
	pending []update
	allowed []string // last allowed_updates a getUpdates sent; nil until one does
	sawList bool
	poller  *poller // the getUpdates being held, if any
}

// poller is a held getUpdates; a newer one terminates it, as Telegram does.
type poller struct{ terminated bool }

// firstUpdateID is far from 0 so that a bot confusing "no offset" with "offset 0" or ids with counts shows it.
const firstUpdateID = 100001

func (q *updateQueue) init() { q.nextID = firstUpdateID }

// defaultExcluded are the update kinds Telegram sends only when asked for explicitly.
var defaultExcluded = map[string]bool{"chat_member": true, "message_reaction": true, "message_reaction_count": true}

func (q *updateQueue) wants(kind string) bool {
	if len(q.allowed) == 0 {
		return !defaultExcluded[kind]
	}
	for _, k := range q.allowed {
		if k == kind {
			return true
		}
	}
	return false
}

// confirm applies a getUpdates offset: a positive one drops every update below it for good; a negative one
// keeps only the last -offset updates.
func (q *updateQueue) confirm(offset int64) {
	switch {
	case offset > 0:
		i := 0
		for i < len(q.pending) && q.pending[i].id < offset {
			i++
		}
		q.pending = q.pending[i:]
	case offset < 0:
		if keep := int(-offset); keep < len(q.pending) {
			q.pending = q.pending[len(q.pending)-keep:]
		}
	}
}

func (q *updateQueue) batch(limit int) []json.RawMessage {
	out := []json.RawMessage{}
	for _, u := range q.pending {
		if len(out) == limit {
			break
		}
		out = append(out, u.json)
	}
	return out
}

// addUpdateLocked queues an update whose only field besides update_id is kind. It returns the update_id, or 0
// when the bot's allowed_updates filter it out (Telegram never creates it then).
func (s *Server) addUpdateLocked(kind string, payload any) int64 {
	if !s.updates.wants(kind) {
		return 0
	}
	body, err := json.Marshal(payload)
	if err != nil {
		s.tb.Errorf("tgtest: marshal %s update: %v", kind, err)
		return 0
	}
	id := s.updates.nextID
	s.updates.nextID++
	rendered, err := json.Marshal(map[string]json.RawMessage{
		"update_id": json.RawMessage(strconv.FormatInt(id, 10)),
		kind:        body,
	})
	if err != nil {
		s.tb.Errorf("tgtest: render update: %v", err)
		return 0
	}
	s.updates.pending = append(s.updates.pending, update{id: id, kind: kind, json: rendered})
	s.notifyLocked()
	return id
}

// AddUpdate queues a raw update: a JSON object (string, []byte or json.RawMessage) or any value that marshals to
// one, such as {"edited_message": {...}}. Its update_id, if any, is replaced by the next one in sequence; a chat
// it shows becomes known. Nothing checks that its payload is what the Bot API documents: a test may send what a
// newer Bot API, or a broken one, would. It returns the update_id, or 0 when the bot's allowed_updates exclude
// the kind.
func (s *Server) AddUpdate(v any) int64 {
	s.tb.Helper()
	return s.AddUpdates(v)[0]
}

// AddUpdates queues several raw updates (each as AddUpdate takes it) at once, so that one getUpdates returns
// them all in one batch, in order. It returns their update_ids.
func (s *Server) AddUpdates(vs ...any) []int64 {
	s.tb.Helper()
	type parsed struct {
		kind string
		body json.RawMessage
	}
	ps := make([]*parsed, len(vs))
	for i, v := range vs {
		kind, body, err := rawUpdate(v)
		if err != nil {
			s.tb.Errorf("tgtest: AddUpdate: %v", err)
			continue
		}
		ps[i] = &parsed{kind, body}
	}
	ids := make([]int64, len(vs))
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, p := range ps {
		if p == nil {
			continue
		}
		s.learnChatsLocked(p.body)
		ids[i] = s.addUpdateLocked(p.kind, p.body)
	}
	return ids
}

// rawUpdate splits an update given to AddUpdate into its kind and payload.
func rawUpdate(v any) (kind string, body json.RawMessage, err error) {
	var raw []byte
	switch t := v.(type) {
	case string:
		raw = []byte(t)
	case []byte:
		raw = t
	case json.RawMessage:
		raw = t
	default:
		if raw, err = json.Marshal(v); err != nil {
			return "", nil, err
		}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return "", nil, fmt.Errorf("not a JSON object: %w", err)
	}
	delete(fields, "update_id")
	if len(fields) != 1 {
		return "", nil, fmt.Errorf("an update has exactly one field besides update_id, got %d", len(fields))
	}
	for kind, body := range fields {
		return kind, body, nil
	}
	panic("unreachable: one field")
}

// learnChatsLocked registers chats a raw update shows (a message's chat, or a callback query's message's chat)
// so the bot can answer there, as it could with Telegram.
func (s *Server) learnChatsLocked(body json.RawMessage) {
	var probe struct {
		Chat    *Chat `json:"chat"`
		Message *struct {
			Chat *Chat `json:"chat"`
		} `json:"message"`
	}
	if json.Unmarshal(body, &probe) != nil {
		return // not an object of that shape: nothing to learn
	}
	chats := []*Chat{probe.Chat}
	if probe.Message != nil {
		chats = append(chats, probe.Message.Chat)
	}
	for _, c := range chats {
		if c == nil || c.ID == 0 {
			continue
		}
		if _, known := s.chats[c.ID]; !known {
			s.chatLocked(*c)
		}
	}
}

// PendingUpdates is how many updates wait for confirmation by a getUpdates offset.
func (s *Server) PendingUpdates() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.updates.pending)
}

// AllowedUpdates is the allowed_updates list the bot last sent to getUpdates; nil if it never sent one.
func (s *Server) AllowedUpdates() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.updates.sawList {
		return nil
	}
	return append([]string{}, s.updates.allowed...)
}

type pollParams struct {
	offset  int64
	limit   int
	timeout time.Duration
}

func readPollParams(c Call) (pollParams, *apiError) {
	p := pollParams{offset: c.Int64("offset"), limit: int(c.Int64("limit"))}
	if p.limit <= 0 || p.limit > 100 {
		p.limit = 100
	}
	if secs := c.Int64("timeout"); secs > 0 {
		p.timeout = time.Duration(secs) * time.Second
	}
	for _, name := range []string{"offset", "limit", "timeout"} {
		if v, ok := c.Params[name]; ok {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				return p, badRequest("wrong parameter %s", name)
			}
		}
	}
	return p, nil
}

// serveGetUpdates confirms updates below offset, then answers at once if updates are pending, or holds the call
// up to timeout until one arrives, the client leaves, a newer getUpdates takes over (409) or the server closes.
func (s *Server) serveGetUpdates(w http.ResponseWriter, r *http.Request, call Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, caught := s.faults.match(call); caught {
		s.recordLocked(faultRecord(call, f))
		s.mu.Unlock()
		s.serveFault(w, r, f)
		s.mu.Lock()
		return
	}
	if s.webhook != "" {
		s.respondLocked(w, call, nil, &apiError{code: http.StatusConflict,
			description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"})
		return
	}
	p, perr := readPollParams(call)
	if perr != nil {
		s.respondLocked(w, call, nil, perr)
		return
	}
	if v, ok := call.Params["allowed_updates"]; ok {
		var kinds []string
		if err := json.Unmarshal([]byte(v), &kinds); err != nil {
			s.respondLocked(w, call, nil, badRequest("can't parse allowed updates: %v", err))
			return
		}
		s.updates.allowed, s.updates.sawList = kinds, true
	}
	s.updates.confirm(p.offset)
	if old := s.updates.poller; old != nil {
		old.terminated = true
	}
	me := &poller{}
	s.updates.poller = me
	s.notifyLocked()
	defer func() {
		if s.updates.poller == me {
			s.updates.poller = nil
		}
	}()

	var deadline <-chan time.Time
	for {
		if me.terminated {
			s.respondLocked(w, call, nil, &apiError{code: http.StatusConflict,
				description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"})
			return
		}
		if b := s.updates.batch(p.limit); len(b) > 0 || p.timeout == 0 {
			s.respondLocked(w, call, b, nil)
			return
		}
		if deadline == nil {
			t := time.NewTimer(p.timeout)
			defer t.Stop()
			deadline = t.C
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
			s.mu.Lock()
		case <-deadline:
			s.mu.Lock()
			p.timeout = 0 // answer with whatever is there now, even nothing
		case <-s.done:
			s.mu.Lock()
			p.timeout = 0
		case <-r.Context().Done():
			s.mu.Lock()
			call.Status = 0
			s.recordLocked(call)
			return
		}
	}
}
