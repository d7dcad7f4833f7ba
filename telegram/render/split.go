package render

import (
	"unicode/utf8"
)

// MinLimit is the smallest limit Split and SplitPlain honour; smaller limits
// are raised to it (an entity like &#128512; must fit in a part).
const MinLimit = 16

// Split cuts Telegram HTML into parts of at most limit UTF-16 code units of
// HTML source each. Source length bounds Telegram's own count (visible text
// after entity parsing) from above, so every part fits either way.
//
// Cuts prefer paragraph boundaries, then line ends, then spaces, then any
// point between a character, entity or tag; the newlines or space at a cut
// are dropped. Tags open at a cut are closed at the end of the part and
// reopened (same attributes, e.g. a code block's language) at the start of the
// next. If html is valid per Validate, so is every part. Tags that could not
// be reopened within a quarter of the limit are dropped, keeping their text.
// Parts without visible text are omitted, so empty html gives no parts.
func Split(html string, limit int) []string {
	return split(html, Limits{Visible: limit, Source: limit}, false)
}

// Limits bound one part of Telegram HTML. Zero fields mean no bound (but
// Source is always bounded: zero means Visible).
type Limits struct {
	// Visible is Telegram's own count: UTF-16 units of the text once tags
	// are removed and entities decoded (4096 for a message).
	Visible int
	// Source bounds the HTML as sent, markup included. Telegram refuses a
	// message whose entities take too much room (ENTITIES_TOO_LONG, about
	// 9,500 characters of markup by the Bot API maintainer's estimate), so
	// markup-heavy text needs this even when its visible text fits.
	Source int
	// Entities bounds the number of tags opened in a part (reopened ones
	// included); Telegram honours about 100 entities per message.
	Entities int
}

// Message is the loosest measure a text message is sent with: Telegram's
// visible length, with markup and entity count kept well under the limits
// that are not published (see Limits).
var Message = Limits{Visible: MaxMessage, Source: 7000, Entities: 100}

// SplitWithin is Split with separate bounds on visible text, HTML source
// and entity count: parts are cut where the first of them is reached, so
// text with little markup fills a message to Telegram's real limit.
func SplitWithin(html string, l Limits) []string {
	return split(html, l, false)
}

// Fits reports whether html is within l as one part.
func Fits(html string, l Limits) bool {
	l = l.norm()
	if utf16Len(html) > l.Source {
		return false
	}
	if utf16Len(VisibleText(html)) > l.Visible {
		return false
	}
	if l.Entities > 0 {
		n := 0
		for _, t := range scanTags(html, l.Source) {
			if !t.closing && !t.drop {
				n++
			}
		}
		return n <= l.Entities
	}
	return true
}

func (l Limits) norm() Limits {
	if l.Source <= 0 {
		l.Source = l.Visible
	}
	if l.Visible <= 0 || l.Visible > l.Source {
		// Visible text never exceeds its source: the source bound covers it.
		l.Visible = l.Source
	}
	l.Source = max(l.Source, MinLimit)
	l.Visible = max(l.Visible, MinLimit)
	return l
}

// SplitPlain cuts plain text (no markup) into parts of at most limit UTF-16
// code units, preferring paragraph, line and word boundaries, never cutting a
// rune or surrogate pair.
func SplitPlain(text string, limit int) []string {
	return split(text, Limits{Visible: limit, Source: limit}, true)
}

type tokKind uint8

const (
	tokText tokKind = iota
	tokEntity
	tokOpen
	tokClose
	tokDropped // a tag Split leaves out (see scanTags)
)

type tagInfo struct {
	start, end int
	name       string
	closing    bool
	drop       bool
}

type elem struct {
	open       string // the tag as written, reopened verbatim
	name       string
	openUnits  int
	closeUnits int
}

type cut struct {
	ok         bool
	end, next  int
	used, vis  int
	skipNewlns bool
}

type splitter struct {
	s     string
	limit int // HTML source units
	vlim  int // visible units
	ents  int // entities per part; 0: no bound
	plain bool
	tags  []tagInfo
	ti    int    // index of the first tag at or after the current part start
	stack []elem // elements open at the current part start
	parts []string
	buf   []byte
	scan  []int
}

func split(s string, l Limits, plain bool) []string {
	l = l.norm()
	sp := &splitter{s: s, limit: l.Source, vlim: l.Visible, ents: l.Entities, plain: plain}
	if !plain {
		sp.tags = scanTags(s, l.Source)
	}
	p := 0
	for p < len(s) {
		c := sp.findCut(p)
		sp.emit(p, c.end)
		p = c.next
		if c.skipNewlns {
			for p < len(s) && s[p] == '\n' {
				p++
			}
		}
		// The skipped separator may hold dropped tags; step past them.
		for sp.ti < len(sp.tags) && sp.tags[sp.ti].start < p {
			sp.ti++
		}
	}
	return sp.parts
}

// token reads the token at q. ti is the index of the next tag. units counts
// HTML source, vis what Telegram shows.
func (sp *splitter) token(q, ti int) (k tokKind, end, units, vis, nextTi int) {
	s := sp.s
	c := s[q]
	if !sp.plain {
		if c == '<' && ti < len(sp.tags) && sp.tags[ti].start == q {
			t := &sp.tags[ti]
			switch {
			case t.drop:
				return tokDropped, t.end, 0, 0, ti + 1
			case t.closing:
				return tokClose, t.end, utf16Len(s[q:t.end]), 0, ti + 1
			default:
				return tokOpen, t.end, utf16Len(s[q:t.end]), 0, ti + 1
			}
		}
		if c == '&' {
			if e := entityEnd(s, q); e > 0 {
				return tokEntity, e, e - q, utf16Len(VisibleText(s[q:e])), ti
			}
		}
	}
	if c < utf8.RuneSelf {
		return tokText, q + 1, 1, 1, ti
	}
	r, size := utf8.DecodeRuneInString(s[q:])
	if r >= 0x10000 {
		return tokText, q + size, 2, 2, ti
	}
	return tokText, q + size, 1, 1, ti
}

// findCut scans forward from p as far as the limit allows and picks the best
// place to end the part.
func (sp *splitter) findCut(p int) cut {
	s, limit := sp.s, sp.limit
	prefix, closeU := 0, 0
	sp.scan = sp.scan[:0]
	for _, e := range sp.stack {
		prefix += e.openUnits
		closeU += e.closeUnits
		sp.scan = append(sp.scan, e.closeUnits)
	}
	half, vhalf := prefix+(limit-prefix)/2, sp.vlim/2
	used, vis, ents := prefix, 0, len(sp.stack)
	var para, line, space, anyc, loose cut
	nlRun, nlUsed, nlVis := -1, 0, 0
	prevOpen := false
	var g graphemes
	q, ti := p, sp.ti
	for q < len(s) {
		k, e, u, v, nti := sp.token(q, ti)
		fits := used+closeU <= limit
		var r rune = -1
		if k == tokText {
			r = rune(s[q])
			if r >= utf8.RuneSelf {
				r, _ = utf8.DecodeRuneInString(s[q:])
			}
		}
		inCluster := g.next(r)
		if q > p && fits {
			loose = cut{ok: true, end: q, next: q, used: used, vis: vis}
			// Never strand an opening tag at the end of a part or start the
			// next with a closing one (both make empty elements), and keep
			// emoji sequences and combining marks with their base.
			if !prevOpen && k != tokClose && !inCluster {
				anyc = loose
			}
		}
		if used+u > limit || vis+v > sp.vlim || (k == tokOpen && sp.ents > 0 && ents >= sp.ents) {
			break
		}
		switch k {
		case tokText:
			good := q > p && fits && !prevOpen
			switch s[q] {
			case '\n':
				if nlRun < 0 {
					nlRun, nlUsed, nlVis = q, used, vis
				} else if nlRun > p && nlUsed+closeU <= limit {
					para = cut{ok: true, end: nlRun, next: q, used: nlUsed, vis: nlVis, skipNewlns: true}
				}
				if good {
					line = cut{ok: true, end: q, next: q, used: used, vis: vis, skipNewlns: true}
				}
			case ' ':
				nlRun = -1
				if good {
					space = cut{ok: true, end: q, next: q + 1, used: used, vis: vis}
				}
			default:
				nlRun = -1
			}
		case tokEntity:
			nlRun = -1
		case tokOpen:
			nlRun = -1
			ents++
			cu := len(sp.tags[ti].name) + 3
			sp.scan = append(sp.scan, cu)
			closeU += cu
		case tokClose:
			nlRun = -1
			if n := len(sp.scan); n > 0 {
				closeU -= sp.scan[n-1]
				sp.scan = sp.scan[:n-1]
			}
		}
		if k != tokDropped {
			prevOpen = k == tokOpen
		}
		used += u
		vis += v
		q, ti = e, nti
		if k == tokText && r < utf8.RuneSelf {
			// Fast path: ordinary ASCII after ASCII costs one unit per
			// byte, and every position in the run is a hard-cut candidate.
			n := plainRun(s[q:])
			if m := min(n, limit-used, sp.vlim-vis); m > 0 {
				if x := min(q+m-1, q+limit-used-closeU); x >= q && x > p {
					anyc = cut{ok: true, end: x, next: x, used: used + x - q, vis: vis + x - q}
					loose = anyc
				}
				used += m
				vis += m
				q += m
				nlRun = -1
				g = graphemes{prev: rune(s[q-1])}
			}
		}
	}
	if q >= len(s) && used+closeU <= limit {
		return cut{ok: true, end: len(s), next: len(s)}
	}
	for _, c := range [...]cut{para, line, space} {
		if c.ok && (c.used >= half || c.vis >= vhalf) {
			return c
		}
	}
	for _, c := range [...]cut{para, line, space, anyc, loose} {
		if c.ok {
			return c
		}
	}
	// Unreachable when scanTags keeps the reopen overhead under limit/4:
	// the first token always fits. Still, always make progress.
	_, e, _, _, _ := sp.token(p, sp.ti)
	return cut{ok: true, end: e, next: e}
}

// emit writes s[p:end] as one part: inherited tags are reopened lazily (an
// element closed before any content is simply left out) and everything still
// open at the end is closed.
func (sp *splitter) emit(p, end int) {
	s := sp.s
	b := sp.buf[:0]
	flushed, hasText := false, false
	flush := func() {
		if !flushed {
			for _, e := range sp.stack {
				b = append(b, e.open...)
			}
			flushed = true
		}
	}
	q, ti := p, sp.ti
	for q < end {
		next := end
		if ti < len(sp.tags) && sp.tags[ti].start < end {
			next = sp.tags[ti].start
		}
		if q < next {
			// Text and entities are copied as they are.
			flush()
			b = append(b, s[q:next]...)
			hasText = hasText || hasVisible(s[q:next])
			q = next
			continue
		}
		t := &sp.tags[ti]
		ti++
		q = t.end
		switch {
		case t.drop:
		case t.closing:
			if n := len(sp.stack); n > 0 {
				sp.stack = sp.stack[:n-1]
			}
			if flushed {
				b = append(b, s[t.start:t.end]...)
			}
		default:
			flush()
			b = append(b, s[t.start:t.end]...)
			sp.stack = append(sp.stack, elem{
				open: s[t.start:t.end], name: t.name,
				openUnits: utf16Len(s[t.start:t.end]), closeUnits: len(t.name) + 3,
			})
		}
	}
	if flushed {
		for i := len(sp.stack) - 1; i >= 0; i-- {
			b = append(b, "</"...)
			b = append(b, sp.stack[i].name...)
			b = append(b, '>')
		}
	}
	sp.ti = ti
	sp.buf = b
	if hasText {
		sp.parts = append(sp.parts, string(b))
	}
}
