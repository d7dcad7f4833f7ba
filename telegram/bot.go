// Package telegram is the bot: it polls Telegram, routes updates to one
// actor per session (chat or forum topic), drives Claude through an Engine,
// renders progress and answers, and sends everything through one outbox.
package telegram

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/telegram/accounts"

	tgbot "github.com/go-telegram/bot"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/host"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/redact"
	"github.com/untether/untether/telegram/arrival"
	"github.com/untether/untether/telegram/control"
	"github.com/untether/untether/telegram/draftid"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
	"github.com/untether/untether/telegram/weblink"
	"github.com/untether/untether/transcript"
)

// Config is everything the bot needs, as plain values: the core's
// (chat.Config: sessions, money, the stall watch, the settings' defaults,
// send_file) and Telegram's.
type Config struct {
	chat.Config
	Token        string
	APIURL       string
	AllowedUsers []int64
	AllowAnyUser bool
	AllowedChats []int64
	PollTimeout  time.Duration
	MinEdit      time.Duration // private chats
	GroupEdit    time.Duration
	MaxActions   int
	// ProgressDelay is how long a turn runs before it gets a progress
	// message (typing or a draft shows meanwhile): a quick turn costs only
	// its answer. Default 1s.
	ProgressDelay time.Duration
	// UploadKeep is how long saved files are kept (by modification time);
	// older ones are removed at start and every hour. 0 keeps them.
	UploadKeep   time.Duration
	ShutdownWait time.Duration
	// CommandWait bounds one piece of a session's router work that may
	// wait for Claude or the disk (a command, a typed answer); default 1m.
	CommandWait time.Duration
	// PressBurst is how many buttons an allowed user may press back to
	// back, then one a second; default 30, negative: no limit (benchmarks).
	PressBurst int
	// Transport carries every Bot API call and file download; nil is Go's
	// default. Tests give tgtest's in-memory one, which lets the bot run
	// inside a testing/synctest bubble (no sockets, the bubble's clock).
	Transport http.RoundTripper
	// Outbox overrides the outbox pacing (zero values are the defaults).
	Outbox outbox.Options
	// Voice transcribes voice notes, audio files and video notes into
	// prompts; without a Transcriber they get a hint.
	Voice Voice
	// Speak sends answers also as voice notes (speak.go); without a
	// Speaker, none.
	Speak Speak
	// Secrets are removed, like the token, from every text the bot sends
	// (see redact.go): API keys from the environment, say.
	Secrets []string
	// WorktreesDir is [projects] worktrees_dir, where /branch makes
	// worktrees; "" puts them beside the repository (see
	// projects.WorktreePath). Either way a worktree must lie inside
	// ProjectRoots, like any /cwd.
	WorktreesDir string
	// Version is untether's own; /status shows it with the CLI's
	// (chat.Config.ClaudeVersion).
	Version string
	// Schedules is [schedule] and [[schedules]]; Hooks, when set, serves
	// [triggers] (schedules.go).
	Schedules Schedules
	Hooks     HookServer

	// Approvers are who may answer approval, plan and question prompts in
	// groups ([telegram] approver_user_ids); empty: everyone allowed.
	Approvers []int64
	// PlainAnswers turns rich messages off ([progress] rich = false):
	// every answer goes out as Telegram HTML.
	PlainAnswers bool
	// Web is the web view's sign-in links (/web); nil: off.
	Web weblink.Logins
}

// FileServer is the send_file tool's server: *filesend.Server, or a
// stand-in in tests (its socket cannot live in a synctest bubble).
type FileServer = chat.FileServer

func (c *Config) defaults() {
	if c.PollTimeout <= 0 {
		c.PollTimeout = 30 * time.Second
	}
	if c.MaxBacklogAge <= 0 {
		c.MaxBacklogAge = 10 * time.Minute
	}
	if c.MinEdit <= 0 {
		c.MinEdit = 2 * time.Second
	}
	if c.GroupEdit <= 0 {
		c.GroupEdit = 4 * time.Second
	}
	if c.Stream == "" {
		c.Stream = view.StreamDrafts
	}
	if c.ProgressDelay <= 0 {
		c.ProgressDelay = time.Second
	}
	if c.MaxActions <= 0 {
		c.MaxActions = 8
	}
	if c.MaxLive <= 0 {
		c.MaxLive = 4
	}
	if c.ApprovalWait <= 0 {
		c.ApprovalWait = approvals.DefaultTimeout
	}
	if c.ShutdownWait <= 0 {
		c.ShutdownWait = 10 * time.Second
	}
	if c.CommandWait <= 0 {
		c.CommandWait = defaultCommandWait
	}
	if c.PressBurst == 0 {
		c.PressBurst = accounts.DefaultPressBurst
	}
	if c.PlanMode == "" {
		c.PlanMode = "off"
	}
	if c.AlbumWait <= 0 {
		c.AlbumWait = time.Second
	}
	if c.StallAfter == 0 {
		c.StallAfter = chat.DefaultStallAfter
	}
	c.Host = host.Or(c.Host)
	c.Voice.defaults()
	if c.UploadDir == "" {
		c.UploadDir = filepath.Join(os.TempDir(), "untether-uploads")
	}
}

// Bot is the running bot. Create it with New, then call Run.
type Bot struct {
	cfg   Config
	log   *slog.Logger
	store *prefs.Store
	// redactor removes the token and Secrets from every text sent.
	redactor *redact.Redactor
	client   *tgbot.Bot
	api      *tgAPI       // every call to Telegram but polling (api.go)
	files    *http.Client // downloads of users' files
	out      *outbox.Outbox
	broker   *approvals.Broker
	// machines are where Claude can work, by name (machines.go); each has
	// the pool of its live processes.
	machines *chat.Machines

	allow     allowlist     // allowed_user_ids, allowed_chat_ids (access.go)
	approvers *approverBook // who may answer prompts in groups (approvers.go)

	me       botIdentity
	cancels  tokens[cancelRef] // Cancel buttons of running turns
	prompts  promptBook
	sessions tokens[sessionChoice] // buttons of /sessions lists
	stalls   tokens[*stallAsk]     // Keep waiting buttons of stall questions
	topicBtn tokens[topicChoice]   // "open a topic" buttons of /cwd answers (topics.go)
	sched    *chat.Scheduler       // scheduled and triggered runs (schedules.go)
	speech   *voiceReplies         // answers as voice notes (speak.go)
	subs     *subscriptionNotes    // the note on runs on a subscription login
	schedMsg tokens[scheduleRef]   // ✖ buttons of /schedules lists
	menus    sync.Map              // chat id → the command menu last set for it (a string)
	albums   sync.Map              // media_group_id → time an item addressed to the bot arrived
	accounts *accounts.Table       // per-user press limits, strangers' notices (bounded)
	lanes    *lanes                // per-session router work off the poll loop
	asides   *control.Asides       // /btw questions, off the lanes
	noDrafts sync.Map              // chat id → Telegram refused a draft there: stream by edits
	draftIDs *draftid.IDs          // each turn's draft id, one turn's only (stop from the draft)
	arrived  arrival.Stamps[place] // "typing…" shown as a message arrived (router.go)
	rich     *richChats            // where rich messages go (rich.go)
	noTopics sync.Map              // chat id → Telegram refused a topic there: no topic buttons (topics.go)
	baseCtx  context.Context
	stopping chan struct{}

	// core runs every chat's sessions and turns (package chat); surf is
	// how it shows them here.
	core *chat.Core
	surf *surface
	wg   sync.WaitGroup

	// transcript is every conversation's turns, for /export (package transcript, telegram/control).
	transcript *transcript.Log

	// storedOffset is the update offset last written to the store; the
	// poller writes its own only when they differ (see saveOffset).
	storedOffset atomic.Int64
}

type botIdentity struct {
	ID       int64
	Username string
	// Topics: forum topic mode is on for the bot in private chats
	// (getMe's has_topics_enabled, Bot API 9.3).
	Topics bool
}

// New builds a bot. The store must be open; the engine starts Claude.
func New(cfg Config, eng engine.Engine, store *prefs.Store, log *slog.Logger) (*Bot, error) {
	cfg.defaults()
	if cfg.Token == "" {
		return nil, errors.New("telegram: bot token is empty")
	}
	if !view.ValidStream(cfg.Stream) {
		return nil, fmt.Errorf("telegram: stream %q: want off, edits or drafts", cfg.Stream)
	}
	if len(cfg.AllowedUsers) == 0 && !cfg.AllowAnyUser {
		return nil, errors.New("telegram: allowed_user_ids is empty and allow_any_user is off: nobody could use the bot")
	}
	if log == nil {
		log = slog.Default()
	}
	b := &Bot{
		cfg:       cfg,
		log:       log,
		store:     store,
		redactor:  redact.New(append([]string{cfg.Token}, cfg.Secrets...)...),
		draftIDs:  draftid.New(time.Now()),
		allow:     newAllowlist(cfg),
		approvers: newApprovers(cfg.Approvers),
		stopping:  make(chan struct{}),
		accounts:  accounts.New(accounts.Kept, cfg.PressBurst),
	}
	b.lanes = newLanes(b, cfg.CommandWait)
	b.asides = &control.Asides{Ctx: b.lanes.ctx, Wait: cfg.CommandWait, WG: &b.wg}
	tr := cfg.Transport
	if tr == nil {
		// The outbox runs up to MaxInFlight calls at once; the default
		// transport keeps only 2 idle connections per host, so every busier
		// moment would open (and TLS-handshake) new ones.
		def := http.DefaultTransport.(*http.Transport).Clone()
		def.MaxIdleConnsPerHost = 16
		tr = def
	}
	opts := []tgbot.Option{
		tgbot.WithSkipGetMe(),
		tgbot.WithHTTPClient(cfg.PollTimeout+10*time.Second, &http.Client{Timeout: cfg.PollTimeout + 10*time.Second, Transport: tr}),
	}
	if cfg.APIURL != "" {
		opts = append(opts, tgbot.WithServerURL(strings.TrimRight(cfg.APIURL, "/")))
	}
	client, err := tgbot.New(cfg.Token, opts...)
	if err != nil {
		return nil, fmt.Errorf("telegram client: %s", b.redact(err.Error()))
	}
	b.client = client
	b.prompts.edit = b.editPrompt
	b.files = &http.Client{Transport: tr}
	ob := cfg.Outbox
	if ob.Logger == nil {
		ob.Logger = log
	}
	b.out = outbox.New(ob)
	b.api = &tgAPI{client: b.client, out: b.out, redactor: b.redactor, log: b.log}
	b.rich = &richChats{api: b.api, plain: cfg.PlainAnswers}
	b.speech = newVoiceReplies(cfg.Speak, b)
	b.surf = newSurface(b)
	core, err := chat.New(cfg.Config, eng, store, b.allow, b.allow.user, b.surf, b.redactor, log)
	if err != nil {
		return nil, fmt.Errorf("telegram: %w", err)
	}
	b.core, b.machines, b.broker = core, core.Machines(), core.Broker()
	b.transcript = transcript.New(store, b.redactor)
	b.sched = newScheduler(b)
	b.subs = &subscriptionNotes{api: b.api, log: log}
	return b, nil
}

func set(ids []int64) map[int64]bool {
	m := make(map[int64]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// Run polls until ctx ends, then stops gracefully: running turns are told
// the bot is stopping, sessions are closed within ShutdownWait.
func (b *Bot) Run(ctx context.Context) error {
	b.baseCtx = context.WithoutCancel(ctx)
	b.core.Start(ctx)
	defer transcript.Watch(b.core, b.transcript, b.log)() // after shutdown: the core's last turns are in
	me, err := b.api.getMe(ctx)
	if err != nil {
		return err
	}
	b.me = me
	if err := b.api.dropWebhook(ctx); err != nil {
		return err
	}
	b.log.Info("telegram bot ready", "username", me.Username)
	if err := b.api.setCommands(ctx); err != nil {
		b.log.Warn("could not register commands", "err", b.redact(err.Error()))
	}
	b.approvers.learn(b.api) // in the background: prompts in groups name them
	if err := b.recover(ctx); err != nil {
		return err
	}
	b.sched.Start(ctx)
	if b.cfg.UploadKeep > 0 {
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			chat.SweepUploads(ctx, b.cfg.UploadDir, b.cfg.UploadKeep, b.stopping, b.log)
		}()
	}
	if b.cfg.Files != nil {
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			if err := b.cfg.Files.Serve(ctx, b.deliverFiles); err != nil {
				b.log.Error("the send_file server stopped", "err", err)
			}
		}()
	}
	pollErr := b.poll(ctx)
	b.shutdown()
	if pollErr != nil && !errors.Is(pollErr, context.Canceled) {
		return pollErr
	}
	return nil
}

// shutdown tells running turns the bot stops, closes every session and
// flushes the outbox, all within ShutdownWait.
func (b *Bot) shutdown() {
	close(b.stopping)
	b.lanes.close()
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.ShutdownWait)
	defer cancel()
	coreDone := make(chan error, 1)
	go func() { coreDone <- b.core.Stop(ctx) }()
	done := make(chan struct{})
	go func() { b.wg.Wait(); b.sched.Wait(); close(done) }()
	select {
	case <-done:
		if err := <-coreDone; err != nil {
			b.log.Warn("sessions did not close in time", "wait", b.cfg.ShutdownWait)
		}
	case <-ctx.Done():
		b.log.Warn("sessions did not close in time", "wait", b.cfg.ShutdownWait)
	}
	if err := b.out.Drain(ctx); err != nil {
		b.log.Warn("outbox not fully drained at shutdown", "err", err)
	}
	b.out.Close()
}

// Core is the conversation core the bot runs its chats on: another
// frontend (a web view) watches and acts on the same conversations through
// it (chat.Core.Watch, Press, Cancel, Submit).
func (b *Bot) Core() *chat.Core { return b.core }
