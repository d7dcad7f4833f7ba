package telegram_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/runner/claudefiles"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/tgtest"
)

const wait = 10 * time.Second

// fakeEngine hands out scripted sessions and records how they were started.
type fakeEngine struct {
	mu       sync.Mutex
	script   enginetest.Script
	specs    []engine.Spec
	sessions []*enginetest.Session
	startErr error
	// ledger keeps each session's running cost across starts, so a
	// resumed session continues its total like the real CLI.
	ledger enginetest.Ledger
	// wrap, if set, stands between the bot and a started session (a CLI
	// that stops answering, say).
	wrap func(spec engine.Spec, s *enginetest.Session) engine.Conn
	// claude are Claude Code's own files, as the real engine offers them
	// (session store, commands, the desk command); the store only once a
	// test gave it a configuration directory (setClaudeDir).
	claude claudefiles.Files
	// cpu measures the sessions' process trees (engine.CPUMeter); nil:
	// never known.
	cpu enginetest.Meter
}

// setCPU measures the sessions started from now on with m.
func (e *fakeEngine) setCPU(m enginetest.Meter) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cpu = m
}

// setClaudeDir gives the engine Claude Code's configuration directory: its
// session store and the user's commands.
func (e *fakeEngine) setClaudeDir(dir string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.claude.ConfigDir = dir
}

func (e *fakeEngine) files() claudefiles.Files {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.claude
}

func (e *fakeEngine) SessionStore() engine.SessionStore   { return e.files().SessionStore() }
func (e *fakeEngine) CommandSource() engine.CommandSource { return e.files().CommandSource() }
func (e *fakeEngine) BuiltinCommands() []string           { return e.files().BuiltinCommands() }
func (e *fakeEngine) ResumeCommand(dir, id string) string { return e.files().ResumeCommand(dir, id) }

func (e *fakeEngine) Start(ctx context.Context, spec engine.Spec) (engine.Conn, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.startErr != nil {
		return nil, e.startErr
	}
	e.specs = append(e.specs, spec)
	id := spec.Resume
	if id == "" {
		id = fmt.Sprintf("sess-%d", len(e.specs))
	}
	s := enginetest.New(id, e.script, enginetest.WithLedger(&e.ledger), enginetest.WithCPU(e.cpu))
	e.sessions = append(e.sessions, s)
	if e.wrap != nil {
		return e.wrap(spec, s), nil
	}
	return s, nil
}

func (e *fakeEngine) starts() []engine.Spec {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]engine.Spec(nil), e.specs...)
}

func (e *fakeEngine) session(i int) *enginetest.Session {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sessions[i]
}

// answerScript: "echo" answers with the prompt after one Bash action.
func echoScript(t *enginetest.Turn) {
	t.Start("fake-model")
	t.Emit(engine.ActionStarted{ToolUseID: fmt.Sprintf("tu%d", t.N), Tool: "Bash", Kind: "command", Title: "ls -la"})
	t.Emit(engine.ActionCompleted{ToolUseID: fmt.Sprintf("tu%d", t.N), OK: true, Detail: "a b c"})
	t.Complete("**Answer:** " + t.Prompt)
}

// harness runs the bot against the fake Bot API in memory (no sockets).
// The tests that use it run inside synctest.Test: the bot's timers, the
// fake's held polls, Await's timeouts and time.Sleep in a test all run on
// the bubble's clock, and synctest.Wait says when the bot is idle.
type harness struct {
	t     *testing.T
	tg    *tgtest.Server
	eng   *fakeEngine
	store *prefs.Store
	user  tgtest.User
	dm    tgtest.Chat
	stop  func()
	// engine, when set, is what the bot is given instead of eng (which it
	// may wrap: a durable engine, held_test.go).
	engine engine.Engine
	// uploads is where users' files are saved (Config.UploadDir).
	uploads string
	// logs holds every line the bot logged, across restarts.
	logs logBuffer
}

// logBuffer collects the bot's log lines for tests that assert on them.
type logBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// lines are the logged lines that contain every one of subs.
func (l *logBuffer) lines(subs ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
next:
	for _, line := range strings.Split(l.buf.String(), "\n") {
		for _, s := range subs {
			if !strings.Contains(line, s) {
				continue next
			}
		}
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

type harnessOpt func(*telegram.Config)

func newHarness(t *testing.T, script enginetest.Script, opts ...harnessOpt) *harness {
	t.Helper()
	return newHarnessPre(t, script, nil, opts...)
}

// newHarnessPre prepares the fake Telegram with pre before the bot starts.
func newHarnessPre(t *testing.T, script enginetest.Script, pre func(*tgtest.Server), opts ...harnessOpt) *harness {
	t.Helper()
	tg := tgtest.New(t, tgtest.InMemory())
	if pre != nil {
		pre(tg)
	}
	h := &harness{t: t, tg: tg, eng: &fakeEngine{script: script},
		user: tgtest.User{ID: 4242, FirstName: "Ada", Username: "ada"}, uploads: filepath.Join(t.TempDir(), "uploads")}
	h.dm = tgtest.PrivateChat(h.user)
	store, err := prefs.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	h.store = store
	h.start(opts...)
	return h
}

func (h *harness) config(opts ...harnessOpt) telegram.Config {
	cfg := telegram.Config{
		Token:        h.tg.Token(),
		APIURL:       tgtest.MemoryURL,
		Transport:    h.tg.Transport(),
		AllowedUsers: []int64{h.user.ID},
		PollTimeout:  time.Second,
		MinEdit:      50 * time.Millisecond,
		GroupEdit:    100 * time.Millisecond,
		ShutdownWait: 5 * time.Second,
		Config:       chat.Config{WorkDir: "/work", UploadDir: h.uploads, AlbumWait: 150 * time.Millisecond},
		// Tests are not about pacing: keep Telegram's limits out of the way.
		Outbox: outbox.Options{ChatInterval: -1, GroupPerMinute: -1, GlobalPerSecond: -1, BackoffMin: 10 * time.Millisecond, BackoffMax: 50 * time.Millisecond},
	}
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}

func (h *harness) start(opts ...harnessOpt) {
	h.t.Helper()
	var out io.Writer = &h.logs
	level := slog.LevelInfo // what the owner's log holds
	if testing.Verbose() {
		out, level = io.MultiWriter(&h.logs, testWriter{h.t}), slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: level}))
	var eng engine.Engine = h.eng
	if h.engine != nil {
		eng = h.engine
	}
	b, err := telegram.New(h.config(opts...), eng, h.store, log)
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	stopped := false
	h.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				h.t.Errorf("bot.Run: %v", err)
			}
		case <-time.After(20 * time.Second):
			h.t.Error("bot did not stop")
		}
	}
	h.t.Cleanup(func() {
		h.stop()
		h.store.Close()
	})
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func (h *harness) say(text string, opts ...tgtest.MessageOption) int {
	return h.tg.SendMessage(h.user, h.dm, text, opts...)
}

// awaitText waits for a bot message in chat whose text contains want.
func (h *harness) awaitText(chatID int64, want string) tgtest.Message {
	h.t.Helper()
	return h.tg.AwaitMessage(wait, chatID, func(m tgtest.Message) bool { return strings.Contains(m.Text, want) })
}

func (h *harness) messages(chatID int64) []string {
	var out []string
	for _, m := range h.tg.Messages(chatID) {
		out = append(out, m.Text)
	}
	return out
}

// pending returns the prompts stored for key that have not begun, oldest first.
func (h *harness) pending(key string) ([]prefs.QueuedPrompt, error) {
	all, err := h.store.AllPendingPrompts()
	var out []prefs.QueuedPrompt
	for _, qp := range all {
		if qp.Key == key {
			out = append(out, qp)
		}
	}
	return out, err
}
