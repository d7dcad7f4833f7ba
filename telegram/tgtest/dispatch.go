package tgtest

import (
	"errors"
	"net/http"
	"strings"
)

// method is one Bot API method the fake serves. serve runs under the server's lock.
type method struct {
	name  string
	serve func(s *Server, c Call) (any, *apiError)
}

// methods is keyed by lower-case name: Telegram matches method names case-insensitively.
var methods = map[string]method{}

func init() {
	for _, m := range []method{
		{"getMe", (*Server).getMe},
		{"deleteWebhook", (*Server).deleteWebhook},
		{"getWebhookInfo", (*Server).getWebhookInfo},
		{"setMyCommands", (*Server).setMyCommands},
		{"getMyCommands", (*Server).getMyCommands},
		{"deleteMyCommands", (*Server).deleteMyCommands},
		{"sendMessage", (*Server).sendMessage},
		{"editMessageText", (*Server).editMessageText},
		{"editMessageReplyMarkup", (*Server).editMessageReplyMarkup},
		{"deleteMessage", (*Server).deleteMessage},
		{"answerCallbackQuery", (*Server).answerCallbackQuery},
		{"sendChatAction", (*Server).sendChatAction},
		{"sendMessageDraft", (*Server).sendMessageDraft},
		{"sendRichMessage", (*Server).sendRichMessage},
		{"sendRichMessageDraft", (*Server).sendRichMessageDraft},
		{"createForumTopic", (*Server).createForumTopic},
		{"getChat", (*Server).getChat},
		{"getChatMember", (*Server).getChatMember},
		{"getFile", (*Server).getFile},
		{"sendDocument", (*Server).sendDocument},
		{"sendPhoto", (*Server).sendPhoto},
		{"sendMediaGroup", (*Server).sendMediaGroup},
		{"sendVoice", (*Server).sendVoice},
		{"getUpdates", nil}, // served by serveGetUpdates: it waits outside the lock
	} {
		methods[strings.ToLower(m.name)] = m
	}
}

var (
	errNotFound     = &apiError{code: http.StatusNotFound, description: "Not Found"}
	errUnauthorized = &apiError{code: http.StatusUnauthorized, description: "Unauthorized"}
)

// ServeHTTP answers /bot<token>/<method> like the Bot API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"); ok {
		s.serveFile(w, r, rest)
		return
	}
	rest, isBot := strings.CutPrefix(r.URL.Path, "/bot")
	token, name, hasMethod := strings.Cut(rest, "/")
	if !isBot || !hasMethod {
		writeBody(w, errNotFound.code, errorBody(errNotFound))
		return
	}
	call := Call{Method: name, Time: s.now()}
	m, known := methods[strings.ToLower(name)]
	if known {
		call.Method = m.name
	}
	params, files, perr := parseParams(r)
	call.Params, call.Files = params, files
	var tooLarge *http.MaxBytesError
	switch {
	case token != s.token:
		s.finish(w, call, nil, errUnauthorized)
		return
	case !known:
		s.finish(w, call, nil, errNotFound)
		return
	case errors.As(perr, &tooLarge):
		s.finish(w, call, nil, errBodyTooLarge)
		return
	case perr != nil:
		s.finish(w, call, nil, badRequest("%v", perr))
		return
	case m.serve == nil:
		s.serveGetUpdates(w, r, call)
		return
	}

	s.mu.Lock()
	if f, caught := s.faults.match(call); caught {
		s.recordLocked(faultRecord(call, f))
		s.mu.Unlock()
		s.serveFault(w, r, f)
		return
	}
	if e := s.limiter.admit(call, call.Time); e != nil {
		s.respondLocked(w, call, nil, e)
		s.mu.Unlock()
		return
	}
	result, e := m.serve(s, call)
	s.respondLocked(w, call, result, e)
	s.mu.Unlock()
}

// finish records and answers a call outside the lock.
func (s *Server) finish(w http.ResponseWriter, c Call, result any, e *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.respondLocked(w, c, result, e)
}

// respondLocked records the call before answering it, so a client that has its answer always finds the call in
// Calls. Writing under the lock is fine: the body is small and the connection local.
func (s *Server) respondLocked(w http.ResponseWriter, c Call, result any, e *apiError) {
	var body []byte
	if e == nil {
		var err error
		if body, err = resultBody(result); err != nil {
			e = &apiError{code: http.StatusInternalServerError, description: "Internal Server Error: " + err.Error()}
		}
	}
	c.Status = http.StatusOK
	if e != nil {
		c.Status, body = e.code, errorBody(e)
	}
	c.Response = body
	s.recordLocked(c)
	writeBody(w, c.Status, body)
}

func (s *Server) recordLocked(c Call) {
	s.calls = append(s.calls, c)
	s.notifyLocked()
}
