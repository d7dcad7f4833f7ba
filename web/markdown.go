package web

import (
	"bytes"
	"html/template"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// Answers are Markdown; the page shows them rendered. goldmark (already
// the bot's Markdown parser for Telegram) beats a hand-written renderer for
// CommonMark's corner cases. It is used without its unsafe option: raw
// HTML in an answer is dropped, not passed through, every text is
// escaped, and links with a dangerous scheme (javascript:, vbscript:,
// data: but images) lose their address. Images from elsewhere are not
// loaded anyway: the CSP allows only this server's (img-src 'self').

// markdown renders answers, keeping the last ones: the live part of a chat
// page is rendered again after every event, its answers unchanged.
type markdown struct {
	gm    goldmark.Markdown
	mu    sync.Mutex
	cache map[string]template.HTML
}

// mdCacheMax bounds the cache; when full it starts over.
const mdCacheMax = 256

func newMarkdown() *markdown {
	return &markdown{gm: goldmark.New(goldmark.WithExtensions(extension.Strikethrough, extension.Table)),
		cache: map[string]template.HTML{}}
}

// render is s as safe HTML; s is redacted already.
func (m *markdown) render(s string) template.HTML {
	if s == "" {
		return ""
	}
	m.mu.Lock()
	h, ok := m.cache[s]
	m.mu.Unlock()
	if ok {
		return h
	}
	var b bytes.Buffer
	if err := m.gm.Convert([]byte(s), &b); err != nil {
		// Convert fails only on a failing writer; show the text escaped.
		return template.HTML("<p>" + template.HTMLEscapeString(s) + "</p>") //nolint:gosec // escaped
	}
	h = template.HTML(b.String()) //nolint:gosec // goldmark without WithUnsafe: raw HTML dropped, text escaped
	m.mu.Lock()
	if len(m.cache) >= mdCacheMax {
		clear(m.cache)
	}
	m.cache[s] = h
	m.mu.Unlock()
	return h
}
