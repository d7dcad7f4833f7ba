package tgtest

import (
	"encoding/json"
	"fmt"
	"html"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Rich messages (Bot API 10.1): sendRichMessage and sendRichMessageDraft
// take an InputRichMessage, HTML or Markdown. The fake checks the HTML form
// (the one the bot sends) against the documented limits ("Rich Message
// Limits": 32,768 characters of text, 500 blocks counting nested blocks,
// list items and table rows, 16 levels of nesting, 20 table columns) and a
// tag set: the block tags of rich HTML that follow plain HTML and the
// inline tags of Telegram HTML. The wording of refusals is the fake's own:
// the real texts are not documented. Markdown is accepted unparsed.

// Limits of a rich message, as documented.
const (
	RichMaxChars   = 32768
	RichMaxBlocks  = 500
	RichMaxDepth   = 16
	RichMaxColumns = 20
)

// richBlocks are the block tags; the value says whether the tag counts
// as a block in the limit (summary and table cells do not).
var richBlocks = map[string]bool{
	"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "pre": true,
	"blockquote": true, "hr": true, "ul": true, "ol": true, "li": true, "table": true, "tr": true,
	"details": true, "summary": false, "td": false, "th": false, "tg-thinking": true,
}

// richInline are the inline tags and the attributes each may carry.
var richInline = map[string][]string{
	"b": nil, "strong": nil, "i": nil, "em": nil, "u": nil, "ins": nil, "s": nil, "strike": nil, "del": nil,
	"code": {"class"}, "a": {"href"}, "tg-spoiler": nil, "mark": nil, "br": nil,
}

var richBlockAttrs = map[string][]string{
	"ol": {"start"}, "td": {"colspan", "rowspan", "align"}, "th": {"colspan", "rowspan", "align"},
	"table": {"bordered", "striped"},
}

// richParents says where a tag may stand: its parent's name ("" is the message).
var richParents = map[string][]string{
	"li": {"ul", "ol"}, "tr": {"table"}, "td": {"tr"}, "th": {"tr"}, "summary": {"details"},
}

// RefuseRich makes the fake answer the rich methods like a Bot API server
// older than 10.1: 404 Not Found, as for any method it does not know.
func (s *Server) RefuseRich() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noRich = true
}

// richContent reads rich_message and checks its HTML.
func (s *Server) richContent(c Call) (content, *apiError) {
	var in struct {
		HTML     string `json:"html"`
		Markdown string `json:"markdown"`
	}
	if err := json.Unmarshal([]byte(c.Params["rich_message"]), &in); err != nil {
		return content{}, badRequest("can't parse InputRichMessage JSON object")
	}
	switch {
	case (in.HTML == "") == (in.Markdown == ""):
		return content{}, badRequest("exactly one of html and markdown must be used in the rich message")
	case in.Markdown != "":
		if utf8.RuneCountInString(in.Markdown) > RichMaxChars {
			return content{}, badRequest("rich message text is too long")
		}
		return content{source: in.Markdown, mode: "rich", text: in.Markdown}, nil
	}
	text, err := parseRichHTML(in.HTML)
	if err != nil {
		return content{}, badRequest("can't parse rich message: %s", err)
	}
	if strings.TrimSpace(text) == "" {
		return content{}, badRequest("rich message is empty")
	}
	return content{source: in.HTML, mode: "rich", text: text}, nil
}

func (s *Server) sendRichMessage(c Call) (any, *apiError) {
	if s.noRich {
		return nil, errNotFound
	}
	cs, e := s.resolveChat(c)
	if e != nil {
		return nil, e
	}
	ct, e := s.richContent(c)
	if e != nil {
		return nil, e
	}
	return s.storeSent(cs, c, ct, nil)
}

// sendRichMessageDraft is sendMessageDraft's rich form: a private chat, a
// non-zero draft_id, a rich message within the limits.
func (s *Server) sendRichMessageDraft(c Call) (any, *apiError) {
	if s.noRich {
		return nil, errNotFound
	}
	cs, e := s.resolveChat(c)
	if e != nil {
		return nil, e
	}
	if cs.chat.Type != "private" {
		return nil, badRequest("TEXTDRAFT_PEER_INVALID")
	}
	id, err := strconv.ParseInt(strings.TrimSpace(c.Params["draft_id"]), 10, 64)
	if err != nil || id == 0 {
		return nil, badRequest("draft_id must be a non-zero integer")
	}
	ct, e := s.richContent(c)
	if e != nil {
		return nil, e
	}
	stop, keep, e := stopParams(c)
	if e != nil {
		return nil, e
	}
	cs.drafts = append(cs.drafts, Draft{ChatID: cs.chat.ID, ThreadID: int(c.Int64("message_thread_id")), ID: id,
		Text: ct.text, Source: ct.source, Rich: true, CanStop: stop, KeepOnStop: keep, At: s.now(), after: cs.lastID})
	return true, nil
}

// parseRichHTML checks rich HTML and returns its visible text: blocks end
// with a newline, table cells are separated by " | ".
func parseRichHTML(src string) (string, error) {
	if !utf8.ValidString(src) {
		return "", fmt.Errorf("text must be encoded in UTF-8")
	}
	var out strings.Builder
	var stack []string
	blocks, columns, cells := 0, 0, 0
	inPre := func() bool {
		for _, t := range stack {
			if t == "pre" {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(src); {
		lt := strings.IndexByte(src[i:], '<')
		if lt < 0 {
			lt = len(src) - i
		}
		if lt > 0 {
			raw := src[i : i+lt]
			if strings.ContainsAny(raw, ">") {
				return "", fmt.Errorf("unexpected '>' in the text")
			}
			out.WriteString(html.UnescapeString(raw))
			i += lt
			continue
		}
		end := strings.IndexByte(src[i:], '>')
		if end < 0 {
			return "", fmt.Errorf("unclosed start tag at byte offset %d", i)
		}
		body := src[i+1 : i+end]
		i += end + 1
		if name, ok := strings.CutPrefix(body, "/"); ok {
			name = strings.ToLower(strings.TrimSpace(name))
			if len(stack) == 0 || stack[len(stack)-1] != name {
				return "", fmt.Errorf("can't find start tag for end tag %q", name)
			}
			stack = stack[:len(stack)-1]
			switch {
			case name == "tr":
				columns = max(columns, cells)
				out.WriteString("\n")
			case name == "td" || name == "th":
				out.WriteString(" | ")
			case richBlocks[name] || name == "summary":
				out.WriteString("\n")
			}
			continue
		}
		name, attrs, _ := strings.Cut(body, " ")
		name = strings.ToLower(name)
		_, inline := richInline[name]
		_, block := richBlocks[name]
		if !inline && !block {
			return "", fmt.Errorf("unsupported tag %q", name)
		}
		allowed := richInline[name]
		if block {
			allowed = richBlockAttrs[name]
		}
		if err := checkAttrs(name, attrs, allowed); err != nil {
			return "", err
		}
		parent := ""
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		if want, ok := richParents[name]; ok && !contains(want, parent) {
			return "", fmt.Errorf("tag %q can't be inside %q", name, parent)
		}
		if block {
			if _, pInline := richInline[parent]; pInline || inPre() {
				return "", fmt.Errorf("block %q can't be inside %q", name, parent)
			}
			if richBlocks[name] {
				blocks++
			}
		}
		switch name {
		case "tr":
			cells = 0
		case "td", "th":
			cells++
		}
		if name == "hr" || name == "br" {
			out.WriteString("\n")
			continue // void
		}
		stack = append(stack, name)
		if len(stack) > RichMaxDepth {
			return "", fmt.Errorf("more than %d levels of nested formatting and blocks", RichMaxDepth)
		}
	}
	if len(stack) > 0 {
		return "", fmt.Errorf("can't find end tag corresponding to start tag %q", stack[len(stack)-1])
	}
	text := strings.TrimSpace(out.String())
	switch {
	case utf8.RuneCountInString(text) > RichMaxChars:
		return "", fmt.Errorf("the text is longer than %d characters", RichMaxChars)
	case blocks > RichMaxBlocks:
		return "", fmt.Errorf("more than %d blocks", RichMaxBlocks)
	case columns > RichMaxColumns:
		return "", fmt.Errorf("a table has more than %d columns", RichMaxColumns)
	}
	return text, nil
}

// checkAttrs allows only the named attributes (name="value" or bare).
func checkAttrs(tag, attrs string, allowed []string) error {
	for _, f := range strings.Fields(attrs) {
		key, _, _ := strings.Cut(f, "=")
		if !contains(allowed, strings.ToLower(key)) {
			return fmt.Errorf("unsupported attribute %q of tag %q", key, tag)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
