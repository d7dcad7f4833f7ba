// Package approvals decides what happens to every Claude Code permission
// request (can_use_tool): it answers at once when a rule allows it, or keeps
// it pending behind button tokens until the user presses one, the request
// times out, or its session is cancelled. It also runs the plan-mode flow
// (Pause & Outline Plan, with a progressive cooldown and an outline gate) and
// AskUserQuestion, one question at a time. It knows nothing of Telegram:
// the bot turns Prompts into messages and presses into Press calls.
package approvals

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/untether/untether/cooldown"
	"github.com/untether/untether/scope"
	"github.com/untether/untether/token"
)

// Defaults for Config's zero values.
const (
	DefaultTimeout      = 10 * time.Minute
	DefaultWriteTimeout = 10 * time.Second
	DefaultMinOutline   = 200
)

// Config is fixed at construction.
type Config struct {
	// AllowList holds tool names and Bash rules allowed without asking;
	// build it with MergeAllowList(allowedTools, autoApprove).
	AllowList []string
	// Paths is the part of the path rule shared by all sessions: the
	// owner's extra roots ([claude] add_dirs) and the forbidden paths (the
	// state file, the config file, the uploads root). Each request adds its
	// working directory and its chat's upload folder (Request.WorkDir,
	// Request.UploadDir). A listed file tool (Read, Glob, Grep, LS, Edit,
	// Write…) is allowed without asking only when every path it touches is
	// inside.
	Paths scope.Rule
	// SkipPermissions allows everything except ExitPlanMode and
	// AskUserQuestion without asking.
	SkipPermissions bool
	// Timeout is how long a request waits for the user (default 10 min).
	Timeout time.Duration
	// WriteTimeout bounds the deny written when a request times out
	// (default 10 s); there is no caller context to borrow then.
	WriteTimeout time.Duration
	// Cooldown is the Pause & Outline cooldown, keyed by session key.
	// Nil means cooldown.New(cooldown.DefaultBase, cooldown.DefaultMax, nil).
	Cooldown *cooldown.Tracker
	// MinOutline is the visible outline, in characters, needed after a
	// Pause & Outline before ExitPlanMode is shown again (default 200;
	// negative turns the gate off).
	MinOutline int
	// IsAllowed says who may press buttons; nil lets nobody.
	IsAllowed func(userID int64) bool
	// OnResolved hears about requests resolved without a press (timeout,
	// CancelSession, after the deny was written; Withdraw). It runs on the timer's
	// goroutine or CancelSession's caller; it must not block for long.
	OnResolved func(Resolution)
	Logger     *slog.Logger
	// TokenSeed, when set, derives each button's token from the request
	// (session, request id, action) with this secret instead of drawing it:
	// a request asked again after a restart of the bot (a held session,
	// docs/durability.md) gets the tokens its first prompt's buttons carry,
	// so they still work. Without the secret a token cannot be guessed.
	TokenSeed []byte
}

// Broker owns every pending request. All methods are safe for concurrent use.
type Broker struct {
	seed         []byte
	allow        allowList
	paths        scope.Rule
	skip         bool
	timeout      time.Duration
	writeTimeout time.Duration
	cool         *cooldown.Tracker
	minOutline   int
	isAllowed    func(int64) bool
	onResolved   func(Resolution)
	log          *slog.Logger

	mu       sync.Mutex
	seq      uint64
	pending  map[pendingKey]*pending
	tokens   map[string]tokenRef
	sessions map[string]*sessionState
}

// pendingKey: request ids are only unique within one CLI process, so a
// pending request is known by its session too.
type pendingKey struct{ session, request string }

type pending struct {
	key      pendingKey
	seq      uint64
	req      Request
	resp     Responder
	kind     PromptKind
	outside  []string // resolved paths outside the session's scope
	plan     planInput
	q        *questionState
	actions  []Action // KindTool and KindPlan buttons
	tokens   []string
	timer    *time.Timer
	gen      int // bumped whenever the timer is replaced or the request resolved
	deadline time.Time
}

type tokenRef struct {
	key    pendingKey
	action ActionKind
	option int
}

// sessionState is the per-session plan flow and question text wait.
type sessionState struct {
	gateArmed bool
	noted     int         // visible outline characters since the last Outline
	awaiting  *pendingKey // question whose Other answer is the next text
}

// New returns a broker.
func New(cfg Config) *Broker {
	b := &Broker{
		allow:        parseAllowList(cfg.AllowList),
		paths:        cfg.Paths,
		skip:         cfg.SkipPermissions,
		timeout:      cfg.Timeout,
		writeTimeout: cfg.WriteTimeout,
		cool:         cfg.Cooldown,
		minOutline:   cfg.MinOutline,
		isAllowed:    cfg.IsAllowed,
		onResolved:   cfg.OnResolved,
		seed:         cfg.TokenSeed,
		log:          cfg.Logger,
		pending:      make(map[pendingKey]*pending),
		tokens:       make(map[string]tokenRef),
		sessions:     make(map[string]*sessionState),
	}
	if b.timeout <= 0 {
		b.timeout = DefaultTimeout
	}
	if b.writeTimeout <= 0 {
		b.writeTimeout = DefaultWriteTimeout
	}
	if b.cool == nil {
		b.cool = cooldown.New(cooldown.DefaultBase, cooldown.DefaultMax, nil)
	}
	if b.minOutline == 0 {
		b.minOutline = DefaultMinOutline
	}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	return b
}

// Submit takes a new request. It either answers it at once through r (the
// Submission has no Prompt; a write error is returned) or keeps it pending
// and returns the Prompt to show; r is then answered later by Press,
// TakeText, the timeout or CancelSession.
func (b *Broker) Submit(ctx context.Context, req Request, r Responder) (Submission, error) {
	if r == nil {
		return Submission{}, errors.New("approvals: submit: nil responder")
	}
	if req.RequestID == "" {
		return Submission{}, errors.New("approvals: submit: empty request id")
	}
	log := b.reqLog(req)
	key := pendingKey{req.SessionKey, req.RequestID}

	b.mu.Lock()
	if _, dup := b.pending[key]; dup {
		b.mu.Unlock()
		return Submission{}, fmt.Errorf("approvals: submit %s: request already pending", req.RequestID)
	}
	auto, p := b.decideLocked(req)
	if auto != nil {
		b.mu.Unlock()
		sub := Submission{Outcome: auto.outcome, Reason: auto.reason}
		if !auto.dec.allow {
			sub.Message = auto.dec.message
		}
		level := slog.LevelInfo
		if auto.dec.allow {
			level = slog.LevelDebug // allow-listed reads would flood the log
		}
		log.Log(ctx, level, "approval answered automatically", "request_kind", req.Kind, "tool", req.ToolName, "outcome", auto.outcome, "reason", auto.reason)
		if err := auto.dec.write(ctx, r, req.RequestID); err != nil {
			return sub, fmt.Errorf("approvals: auto-answer %s: %w", req.RequestID, err)
		}
		return sub, nil
	}
	p.key, p.req, p.resp = key, req, r
	b.seq++
	p.seq = b.seq
	b.pending[key] = p
	b.mintLocked(p)
	b.armTimerLocked(p)
	prompt := b.promptLocked(p)
	b.mu.Unlock()
	log.Info("approval pending", "request_kind", req.Kind, "tool", req.ToolName, "kind", p.kind)
	return Submission{Prompt: &prompt}, nil
}

// Press applies the button behind token, pressed by userID in chatID. A
// refusal is a *Refusal. Otherwise the pending state is settled first (a
// second press is already Stale) and then the answer, if the press made one,
// is written; a write error comes back with the filled Result.
func (b *Broker) Press(ctx context.Context, token string, userID, chatID int64) (Result, error) {
	if b.isAllowed == nil || !b.isAllowed(userID) {
		return Result{}, refuse(Unauthorized)
	}
	b.mu.Lock()
	ref, ok := b.tokens[token]
	p := b.pending[ref.key]
	if !ok || p == nil {
		b.mu.Unlock()
		return Result{}, refuse(Stale)
	}
	if p.req.ChatID != chatID {
		b.mu.Unlock()
		return Result{}, refuse(ForeignChat)
	}
	res, dec := b.applyLocked(p, ref)
	b.mu.Unlock()
	return b.finish(ctx, p, res, dec, userID)
}

// finish writes dec (if any) after the lock is released and fills Result.
func (b *Broker) finish(ctx context.Context, p *pending, res Result, dec *decision, userID int64) (Result, error) {
	res.UserID, res.Request = userID, p.req
	log := b.reqLog(p.req)
	if dec == nil {
		log.Debug("approval progress", "outcome", res.Outcome, "user_id", userID)
		return res, nil
	}
	if !dec.allow {
		res.Message = dec.message
	}
	log.Info("approval decided", "outcome", res.Outcome, "user_id", userID)
	if err := dec.write(ctx, p.resp, p.req.RequestID); err != nil {
		return res, fmt.Errorf("approvals: answer %s (%s): %w", p.req.RequestID, res.Outcome, err)
	}
	return res, nil
}

// Pending lists the session's pending requests, oldest first.
func (b *Broker) Pending(sessionKey string) []Request {
	b.mu.Lock()
	defer b.mu.Unlock()
	ps := b.sessionPendingLocked(sessionKey)
	out := make([]Request, len(ps))
	for i, p := range ps {
		out[i] = p.req
	}
	return out
}

// Prompts are the session's pending requests as their prompts (what
// Submit returned, with the buttons still valid), oldest first: for a
// frontend that begins to watch while they wait.
func (b *Broker) Prompts(sessionKey string) []*Prompt {
	b.mu.Lock()
	defer b.mu.Unlock()
	ps := b.sessionPendingLocked(sessionKey)
	out := make([]*Prompt, len(ps))
	for i, p := range ps {
		pr := b.promptLocked(p)
		out[i] = &pr
	}
	return out
}

// sessionPendingLocked returns the session's pending requests, oldest first.
func (b *Broker) sessionPendingLocked(sessionKey string) []*pending {
	var ps []*pending
	for k, p := range b.pending {
		if k.session == sessionKey {
			ps = append(ps, p)
		}
	}
	sortBySeq(ps)
	return ps
}

// CancelSession denies every pending request of the session (interrupt
// false, the message gives reason) and reports each through OnResolved. It
// returns how many there were and the joined write errors.
func (b *Broker) CancelSession(ctx context.Context, sessionKey, reason string) (int, error) {
	b.mu.Lock()
	ps := b.sessionPendingLocked(sessionKey)
	for _, p := range ps {
		b.resolveLocked(p)
	}
	b.mu.Unlock()

	msg := msgCancelled(reason)
	var errs []error
	for _, p := range ps {
		err := p.resp.Deny(ctx, p.req.RequestID, msg, false)
		if err != nil {
			err = fmt.Errorf("approvals: cancel %s: %w", p.req.RequestID, err)
			errs = append(errs, err)
		}
		b.reqLog(p.req).Info("approval cancelled", "reason", reason)
		b.report(Resolution{Outcome: OutcomeCancelled, Request: p.req, Reason: reason, Message: msg, Err: err})
	}
	return len(ps), errors.Join(errs...)
}

// Withdraw resolves a request the CLI took back (control_cancel_request,
// e.g. after an interrupt): nothing is written, since the CLI no longer
// waits for an answer and has already failed the tool call, and
// OnResolved hears OutcomeWithdrawn so the prompt loses its buttons. A
// press on them afterwards is Stale. It reports whether the request was
// pending (false when it was already answered, timed out or cancelled).
func (b *Broker) Withdraw(sessionKey, requestID string) bool {
	b.mu.Lock()
	p := b.pending[pendingKey{sessionKey, requestID}]
	if p == nil {
		b.mu.Unlock()
		return false
	}
	b.resolveLocked(p)
	b.mu.Unlock()
	b.reqLog(p.req).Info("approval withdrawn by claude")
	b.report(Resolution{Outcome: OutcomeWithdrawn, Request: p.req, Reason: "withdrawn by Claude"})
	return true
}

// Forget drops the session's plan-flow state (cooldown, outline gate,
// pending Other answer). Pending requests are left alone: call
// CancelSession first when they should be answered.
func (b *Broker) Forget(sessionKey string) {
	b.cool.Forget(sessionKey)
	b.mu.Lock()
	defer b.mu.Unlock()
	if s := b.sessions[sessionKey]; s != nil && s.awaiting != nil {
		if p := b.pending[*s.awaiting]; p != nil && p.q != nil {
			p.q.awaiting = false
		}
	}
	delete(b.sessions, sessionKey)
}

// expire is the timer callback of one pending request.
func (b *Broker) expire(p *pending, gen int) {
	b.mu.Lock()
	if b.pending[p.key] != p || p.gen != gen {
		b.mu.Unlock()
		return
	}
	b.resolveLocked(p)
	b.mu.Unlock()

	msg := msgTimedOut(b.timeout)
	ctx, cancel := context.WithTimeout(context.Background(), b.writeTimeout)
	err := p.resp.Deny(ctx, p.req.RequestID, msg, false)
	cancel()
	log := b.reqLog(p.req)
	if err != nil {
		err = fmt.Errorf("approvals: time out %s: %w", p.req.RequestID, err)
		// Nobody returns this error to a caller, so it is logged here too.
		log.Warn("approval timed out; deny not written", "err", err)
	} else {
		log.Info("approval timed out")
	}
	b.report(Resolution{Outcome: OutcomeTimedOut, Request: p.req, Reason: "timed out", Message: msg, Err: err})
}

func (b *Broker) report(r Resolution) {
	if b.onResolved != nil {
		b.onResolved(r)
	}
}

// armTimerLocked (re)starts the request's timeout.
func (b *Broker) armTimerLocked(p *pending) {
	if p.timer != nil {
		p.timer.Stop()
	}
	p.gen++
	gen := p.gen
	p.deadline = time.Now().Add(b.timeout)
	p.timer = time.AfterFunc(b.timeout, func() { b.expire(p, gen) })
}

// resolveLocked removes a request and everything that could still act on it.
func (b *Broker) resolveLocked(p *pending) {
	delete(b.pending, p.key)
	b.revokeLocked(p)
	p.gen++
	if p.timer != nil {
		p.timer.Stop()
	}
	if s := b.sessions[p.key.session]; s != nil && s.awaiting != nil && *s.awaiting == p.key {
		s.awaiting = nil
		b.tidyLocked(p.key.session)
	}
}

func (b *Broker) revokeLocked(p *pending) {
	for _, t := range p.tokens {
		delete(b.tokens, t)
	}
	p.tokens = p.tokens[:0]
}

// tokenLocked mints a token for one action of p: random, or with a seed
// derived from the request (see Config.TokenSeed).
func (b *Broker) tokenLocked(p *pending, action ActionKind, option int) string {
	for n := 0; ; n++ {
		t := token.New()
		if b.seed != nil {
			// Each question of a request has tokens of its own: a button
			// of an earlier one must stay dead.
			page := 0
			if p.q != nil {
				page = p.q.index
			}
			t = seededToken(b.seed, p.key, action, option, page, n)
		}
		if _, taken := b.tokens[t]; taken {
			continue
		}
		b.tokens[t] = tokenRef{key: p.key, action: action, option: option}
		p.tokens = append(p.tokens, t)
		return t
	}
}

func (b *Broker) session(key string) *sessionState {
	s := b.sessions[key]
	if s == nil {
		s = &sessionState{}
		b.sessions[key] = s
	}
	return s
}

func (b *Broker) tidyLocked(key string) {
	if s := b.sessions[key]; s != nil && !s.gateArmed && s.awaiting == nil {
		delete(b.sessions, key)
	}
}

func (b *Broker) reqLog(req Request) *slog.Logger {
	return b.log.With("chat_id", req.ChatID, "session_id", req.SessionKey, "request_id", req.RequestID)
}

// decision is an answer to write.
type decision struct {
	allow     bool
	input     json.RawMessage
	perms     []json.RawMessage
	message   string
	interrupt bool
}

func allowWith(input json.RawMessage) *decision {
	if len(input) == 0 {
		input = nil // allow without updatedInput runs the tool as requested
	}
	return &decision{allow: true, input: input}
}

func denyWith(msg string) *decision { return &decision{message: msg} }

func (d *decision) write(ctx context.Context, r Responder, requestID string) error {
	if d.allow {
		return r.Allow(ctx, requestID, d.input, d.perms)
	}
	return r.Deny(ctx, requestID, d.message, d.interrupt)
}

func sortBySeq(ps []*pending) {
	slices.SortFunc(ps, func(x, y *pending) int { return cmp.Compare(x.seq, y.seq) })
}
