package telegram

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// While a turn runs the user sees that something happens, and Claude's text
// as it is written: in a private chat a live draft (sendMessageDraft, Bot
// API 9.5), which Telegram pins under the last message and animates from
// one version to the next; elsewhere, or where Telegram refuses drafts, the
// progress message's latest paragraph (see turn.view), and Telegram's
// "typing…" while nothing else moves.
//
// Drafts and chat actions are typing notifications to Telegram, not
// messages: the outbox paces them in a lane of their own per chat (3 a
// second) and under the global limit, so they never spend the budget an
// answer or a prompt needs (see outbox.Job.Action and docs/performance.md).

const (
	// draftGap spaces a turn's drafts: the client animates what was added
	// in between, so more would hardly look smoother, and every draft
	// spends the global budget (30 calls a second) all chats share: at 50
	// busy chats, two a second each took a third of it. One a second also
	// leaves two of the chat's action window (3 a second) to the next
	// turn's first words.
	draftGap = time.Second
	// thinkingDelay is how long a turn waits before its "Thinking…"
	// placeholder: when Claude's first words come sooner, they are the
	// first draft, and the placeholder costs nothing. Claude Code's first
	// words take a second or more; the user should see a sign within 300
	// ms (issue 36), which 300 ms plus the call itself missed (p50 316 ms).
	thinkingDelay = 200 * time.Millisecond
	// draftRefresh re-sends an unchanged draft: a client shows one for
	// about 30 s.
	draftRefresh = 20 * time.Second
	// typingEvery repeats "typing…", which Telegram shows for 5 s.
	typingEvery = 4500 * time.Millisecond
	// draftStopWait bounds how long an answer or a prompt waits for a
	// draft still on its way: one landing after them would show the
	// half-written text again under the answer.
	draftStopWait = 3 * time.Second
	// bridgeMin is the shortest wait of an answer for the chat's window
	// worth a draft of it (see bridge): below it, the answer itself is
	// about as soon.
	bridgeMin = 300 * time.Millisecond
)

// streamer shows a turn's activity. The turn goroutine feeds it (setText,
// pause, invalidate, stop); its own goroutine queues the calls, which never
// wait for each other: a newer draft replaces one still queued (one outbox
// key per chat), so a busy outbox shows the newest text, not a backlog.
type streamer struct {
	b       *Bot
	pl      place
	draftID int64
	key     string // outbox key of the chat's drafts
	show    bool   // the stream mode is not off

	mu       sync.Mutex
	drafts   bool          // showing drafts; false: typing only
	text     string        // the text being written (Markdown, redacted per event)
	version  int           // bumped when what the draft should show changes
	paused   bool          // an approval prompt is shown: a draft would cover it
	pending  int           // drafts queued or running
	idle     chan struct{} // closed when pending drops to 0
	wroteAny bool          // a draft with text was queued this turn
	signed   bool          // the turn's first draft or typing was queued
	plain    bool          // a rich draft was refused this turn: plain drafts only (rich.go)

	kick chan struct{}
	quit chan struct{}
	done chan struct{}
	once sync.Once
}

// streamMode is how a turn of this chat shows Claude's text: drafts only
// in private chats that did not refuse them.
func (b *Bot) streamMode(key string, pl place) string {
	mode := b.core.Settings(key).Stream
	if mode == view.StreamDrafts {
		if _, refused := b.noDrafts.Load(pl.ChatID); refused || isGroup(pl.ChatID) {
			mode = view.StreamEdits
		}
	}
	return mode
}

// startStreamer starts showing activity for a turn; draftID names its
// drafts (non-zero: the user's message id serves).
func (b *Bot) startStreamer(pl place, mode string, draftID int64) *streamer {
	if draftID == 0 {
		draftID = 1
	}
	s := &streamer{b: b, pl: pl, draftID: draftID, drafts: mode == view.StreamDrafts, show: mode != view.StreamOff,
		key:  "draft:" + strconv.FormatInt(pl.ChatID, 10) + ":" + strconv.Itoa(pl.Thread),
		kick: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	go s.loop()
	return s
}

// setText gives the text being written (a draft shows it).
func (s *streamer) setText(md string) {
	s.mu.Lock()
	if s.text != md {
		s.text = md
		s.version++
	}
	s.mu.Unlock()
	signal(s.kick)
}

// signNow shows the turn's first sign (the placeholder draft, or typing)
// now rather than after thinkingDelay; later signs keep their pace.
func (s *streamer) signNow() {
	if s == nil {
		return
	}
	signal(s.kick)
}

// editing reports whether the progress message shows the text: streaming
// is on and drafts are not used (a group, edits chosen, or refused).
func (s *streamer) editing() bool {
	if s == nil || !s.show {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.drafts
}

// draftHold is how long progress edits wait because a draft is showing
// Claude's text as it is written: until one edit interval after the last
// delta, unless an action started or ended since (then the progress
// message has news). The answer comes right after the text, and a
// progress edit spent just before it would make it wait for the chat's
// window.
func (t *tgTurn) draftHold() time.Duration {
	if t.lastDelta.IsZero() {
		return 0
	}
	return t.interval() - time.Since(t.lastDelta)
}

// streaming is what the progress message shows of the text being written:
// nothing when a draft shows it.
func (t *tgTurn) streaming(text string) string {
	if !t.live.editing() {
		return ""
	}
	return t.b.redactor.Settled(text)
}

// invalidate says the chat got a message from the bot, which removes the
// draft from the user's screen: it is sent again.
func (s *streamer) invalidate() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.version++
	s.mu.Unlock()
	signal(s.kick)
}

// pause stops drafts and typing while the user has to decide (on) and
// waits, boundedly, for a draft on its way: the prompt comes after it.
func (s *streamer) pause(on bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	changed := s.paused != on
	s.paused = on
	s.mu.Unlock()
	if !changed {
		return
	}
	if !on {
		s.invalidate() // the prompt replaced the draft on the screen
		return
	}
	s.settle()
}

// settle drops a draft still queued and waits, at most draftStopWait, for
// one already on its way: what the bot sends next comes after it.
func (s *streamer) settle() {
	s.b.out.Drop(s.key)
	s.waitIdle(draftStopWait)
}

// stop ends the streamer before the answer is sent; it returns once no
// draft can arrive after the answer (or draftStopWait passed).
func (s *streamer) stop() {
	if s == nil {
		return
	}
	s.once.Do(func() { close(s.quit) })
	<-s.done
	s.settle()
}

// loop queues drafts (or typing) until stop: a new draft when the text
// changed, at most one per draftGap, the same one again every
// draftRefresh; typing every typingEvery.
func (s *streamer) loop() {
	defer close(s.done)
	var lastDraft, lastText time.Time
	lastTyping := s.b.arrived.Take(s.pl) // the message's own typing shows still
	shown := -1
	first := max(0, typingEvery-time.Since(lastTyping)) // typing shows at once, unless the arrival's still does
	s.mu.Lock()
	if s.drafts {
		first = thinkingDelay
	}
	s.mu.Unlock()
	timer := time.NewTimer(first)
	defer timer.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-s.kick:
		case <-timer.C:
		}
		s.mu.Lock()
		drafts, text, version, paused := s.drafts, s.text, s.version, s.paused
		s.mu.Unlock()
		now := time.Now()
		next := time.Duration(-1) // no timer: only a kick wakes the loop
		switch {
		case paused:
		case drafts && (version != shown || now.Sub(lastDraft) >= draftRefresh):
			// The first text goes at once; the placeholder before it
			// does not count.
			if wait := draftGap - now.Sub(lastText); !lastText.IsZero() && wait > 0 {
				next = wait
				break
			}
			lastDraft, shown = now, version
			if s.queueDraft(text) {
				lastText = now
			}
			next = draftRefresh
		case drafts:
			next = draftRefresh - now.Sub(lastDraft)
		default:
			if now.Sub(lastTyping) >= typingEvery {
				lastTyping = now
				prio := outbox.Low
				s.mu.Lock()
				if !s.signed { // the turn's first sign goes before a burst's drafts
					s.signed, prio = true, outbox.High
				}
				s.mu.Unlock()
				s.b.chatAction(s.pl, models.ChatActionTyping, prio)
			}
			next = typingEvery - now.Sub(lastTyping)
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		if next >= 0 {
			timer.Reset(next)
		}
	}
}

// queueDraft queues a draft of md and reports whether it has text. The
// first one with text in a turn goes at high priority: it is what the user
// waits for, and a turn has one. Later ones are low, like progress edits,
// and replace each other. A refusal (an older server, a chat that takes
// none) turns this chat to edits, said once in the log; the text is not
// lost: the progress message shows it from then on.
func (s *streamer) queueDraft(md string) bool {
	md = s.b.redactor.Settled(md)
	html := view.StreamDraft(md)
	prio := outbox.Low
	s.mu.Lock()
	if html != "" && !s.wroteAny {
		s.wroteAny, prio = true, outbox.High
	}
	if !s.signed { // the turn's first sign, the placeholder: the user waits for it too
		s.signed, prio = true, outbox.High
	}
	plain := s.plain
	s.mu.Unlock()
	if rich := s.b.rich.draft(s.pl.ChatID, md); rich != "" && !plain {
		s.queueRich(rich, prio)
		return true
	}
	s.queueHTML(html, prio)
	return html != ""
}

// queueHTML queues a draft of html, counted in pending until it is done.
func (s *streamer) queueHTML(html string, prio outbox.Priority) {
	s.addPending()
	s.b.draft(s.pl, s.draftID, html, s.key, prio, s.draftDone)
}

func (s *streamer) addPending() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == 0 {
		s.idle = make(chan struct{})
	}
	s.pending++
}

// bridge shows the answer (html: its first part, as it will be sent) in a
// draft while its message waits for the chat's window, for about within:
// a quick answer right after the previous one is read at once, not when
// the window frees. Drafts don't count in the message window, so the
// answer waits no longer for it; it returns once the draft is on the
// screen or, if it could not go within that time, dropped: the message
// never comes before it. Call it after stop, in drafts mode only.
func (s *streamer) bridge(html string, within time.Duration) { s.bridgeAs(html, false, within) }

// bridgeAs is bridge with a rich draft when rich (the answer goes as a
// rich message, rich.go), so the draft reads like the answer.
func (s *streamer) bridgeAs(html string, rich bool, within time.Duration) {
	if s == nil || !s.show || html == "" || within < bridgeMin {
		return
	}
	s.mu.Lock()
	drafts, plain := s.drafts, s.plain
	s.mu.Unlock()
	if !drafts {
		return
	}
	if rich && !plain {
		s.queueRich(html, outbox.High)
	} else {
		s.queueHTML(html, outbox.High)
	}
	if !s.waitIdle(within) {
		s.settle() // still queued: dropped; on its way: waited for
	}
}

// waitIdle waits, at most d, until no draft is queued or running.
func (s *streamer) waitIdle(d time.Duration) bool {
	s.mu.Lock()
	idle := s.idle
	if s.pending == 0 {
		idle = nil
	}
	s.mu.Unlock()
	if idle == nil {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-idle:
		return true
	case <-t.C:
		return false
	}
}

// draftDone receives the result of every queued draft, once.
func (s *streamer) draftDone(err error) {
	refused := err != nil && !errors.Is(err, outbox.ErrClosed) && !errors.Is(err, outbox.ErrDropped) &&
		!errors.Is(err, outbox.ErrSuperseded)
	s.mu.Lock()
	s.pending--
	if s.pending == 0 && s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
	if refused {
		s.drafts = false
	}
	s.mu.Unlock()
	if !refused {
		return
	}
	signal(s.kick) // typing from now on
	if _, seen := s.b.noDrafts.LoadOrStore(s.pl.ChatID, true); !seen {
		s.b.log.Warn("telegram refused a draft: this chat sees Claude's text in the progress message instead",
			"chat_id", s.pl.ChatID, "err", err)
	}
}

// draft queues one sendMessageDraft (HTML; plain text if Telegram refuses
// the HTML) in the chat's action lane; a newer one with the same key
// replaces it while queued. done gets the result once. Like send, it
// redacts what it sends.
func (b *Bot) draft(p place, draftID int64, html, key string, prio outbox.Priority, done func(error)) {
	html = b.redact(html)
	do := func(parse bool) func(context.Context) error {
		return func(ctx context.Context) error {
			params := &tgbot.SendMessageDraftParams{ChatID: p.ChatID, MessageThreadID: p.Thread,
				DraftID: strconv.FormatInt(draftID, 10), Text: html, CanStop: true, KeepOnStop: true}
			if parse {
				params.ParseMode = models.ParseModeHTML
			} else {
				params.Text = b.redact(plainText(html))
			}
			_, err := b.client.SendMessageDraft(ctx, params)
			return b.api.wrap("sendMessageDraft", err)
		}
	}
	job := outbox.Job{ChatID: p.ChatID, Priority: prio, Action: true, Key: key, Do: do(true)}
	job.OnDone = func(err error) {
		if isParseError(err) {
			job.Do, job.OnDone = do(false), done
			b.out.Replace(job)
			return
		}
		done(err)
	}
	b.out.Replace(job)
}

// chatAction shows "typing…" (or another action) in a chat, without
// waiting; a newer one replaces it while queued.
func (b *Bot) chatAction(p place, action models.ChatAction, pri outbox.Priority) {
	b.out.Replace(outbox.Job{ChatID: p.ChatID, Priority: pri, Action: true,
		Key: "action:" + strconv.FormatInt(p.ChatID, 10) + ":" + strconv.Itoa(p.Thread),
		Do: func(ctx context.Context) error {
			_, err := b.client.SendChatAction(ctx, &tgbot.SendChatActionParams{ChatID: p.ChatID, MessageThreadID: p.Thread, Action: action})
			return b.api.wrap("sendChatAction", err)
		}})
}
