package web_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/redact"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
	"github.com/untether/untether/transcript"
	"github.com/untether/untether/web"
)

// The real browser tests: Debian's chromium driven by chromedp against
// the web view of a real bot on the fake Bot API and the fake engine, all
// on 127.0.0.1. .ci/run installs chromium; without it they are skipped.

// hang bounds each wait as a hang's, never as a measure of speed.
const hang = 2 * time.Minute

type e2e struct {
	ctx   context.Context
	store *prefs.Store
	done  chan struct{}
	core  *chat.Core
	tg    *tgtest.Server
	web   *web.Server
	base  string
	user  tgtest.User
	token string
	// serving: the web view serves (it stops with the bot)
	serving bool
}

// script: a prompt holding "run" asks to run a command, then answers what
// became of it; any other prompt is answered at once.
func script(t *enginetest.Turn) {
	t.Start("test-model")
	if !strings.Contains(t.Prompt, "run") {
		t.Complete("echo: " + t.Prompt)
		return
	}
	d := t.Ask(engine.ApprovalRequest{RequestID: "req-1", Kind: engine.RequestCommand, ToolName: "Bash",
		Input: json.RawMessage(`{"command":"make test-everything","description":"run the tests"}`)})
	if d.Allow {
		t.Complete("the command ran")
	} else {
		t.Complete("the command was denied")
	}
}

// fakeEngine runs its script (nil: script) for every session.
type fakeEngine struct{ script enginetest.Script }

func (e fakeEngine) Start(_ context.Context, spec engine.Spec) (engine.Conn, error) {
	id := spec.Resume
	if id == "" {
		id = "web-e2e-" + spec.SessionKey
	}
	if e.script != nil {
		return enginetest.New(id, e.script), nil
	}
	return enginetest.New(id, script), nil
}

func start(t *testing.T) *e2e {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (apt-get install chromium; .ci/run installs it): the browser tests are skipped")
	}
	_ = chromium
	e := newE2E(t, nil)
	e.serve()
	return e
}

// newE2E runs a bot on the fake Bot API with its web view listening; serve
// starts the view's pages. opts change the view's config.
func newE2E(t testing.TB, sc enginetest.Script, opts ...func(*tgtest.Server, *web.Config)) *e2e {
	t.Helper()
	tg := tgtest.New(t)
	alice := tgtest.User{ID: 4242, FirstName: "Alice", Username: "alice"}
	ctx, cancel := context.WithCancel(context.Background())
	store, err := prefs.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	wcfg := web.Config{Listen: "127.0.0.1:0", BotToken: tg.Token(), Store: store, Log: log,
		History: transcript.New(store, redact.New(tg.Token())),
		Allowed: func(id int64) bool { return id == alice.ID }, Key: telegram.SessionKey, Engine: "Claude Code"}
	for _, o := range opts {
		o(tg, &wcfg)
	}
	ws, err := web.New(wcfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Listen(); err != nil {
		t.Fatal(err)
	}
	cfg := telegram.Config{Token: tg.Token(), APIURL: tg.URL(), AllowedUsers: []int64{alice.ID}, Web: ws}
	cfg.WorkDir = t.TempDir()
	b, err := telegram.New(cfg, fakeEngine{script: sc}, store, log)
	if err != nil {
		t.Fatal(err)
	}
	e := &e2e{store: store, ctx: ctx, done: make(chan struct{}, 2), core: b.Core(), tg: tg, web: ws, base: "http://" + ws.Addr(), user: alice, token: tg.Token()}
	go func() { _ = b.Run(ctx); e.done <- struct{}{} }()
	t.Cleanup(func() {
		cancel()
		<-e.done
		if e.serving {
			<-e.done
		}
		store.Close()
	})
	tg.AwaitCall(hang, "setMyCommands", func(tgtest.Call) bool { return true })
	return e
}

func (e *e2e) serve() {
	e.serving = true
	go func() { _ = e.web.Serve(e.ctx, e.core); e.done <- struct{}{} }()
}

func browser(t *testing.T) context.Context {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.NoSandbox, chromedp.Headless)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, hang)
	t.Cleanup(cancel3)
	return ctx
}

// link asks the bot for /web in the private chat and returns the link it sent.
func (e *e2e) link(t testing.TB) string {
	chat := tgtest.PrivateChat(e.user)
	e.tg.SendMessage(e.user, chat, "/web")
	c := e.tg.AwaitCall(hang, "sendMessage", func(c tgtest.Call) bool { return strings.Contains(c.Param("text"), "/login?t=") })
	text := c.Param("text")
	i := strings.Index(text, e.base+"/login?t=")
	if i < 0 {
		t.Fatalf("no link in %q", text)
	}
	rest := text[i:]
	return rest[:strings.IndexAny(rest, "\"< \n")]
}

// clickNow clicks the first element matching sel once it exists, found
// and clicked in one step in the page. chromedp.Click finds the node, then
// clicks it in a second call: the live region's events replace its
// content (and with it the node) in between, and the click fails with
// "Could not find node with given id".
func clickNow(sel string) chromedp.Action[chromedp.Void] {
	poll := chromedp.Poll[bool](`(() => { const e = document.querySelector(` + strconv.Quote(sel) + `); if (!e) return false; e.click(); return true; })()`)
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := poll(ctx, t)
		return chromedp.Void{}, err
	}
}

// must fails the test on a browser step's error.
func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(sel))
	must(t, "text of "+sel, err)
	return s
}

func TestBrowserLinkLiveTurnApproveAndPrompt(t *testing.T) {
	e := start(t)
	ctx := browser(t)
	link := e.link(t)
	// Opened from another site's page, as Telegram Web does: localhost is
	// another site than 127.0.0.1.
	other := strings.Replace(e.base, "127.0.0.1", "localhost", 1) + "/static/style.css"
	must(t, "open another site", chromedp.Do(ctx, chromedp.Navigate(other)))
	_, err := chromedp.Run(ctx, chromedp.Evaluate[any](`location.href = `+strconv.Quote(link)))
	must(t, "follow the link", err)
	must(t, "land signed in", chromedp.Do(ctx, chromedp.WaitVisible(`ul.chats`)))
	if home := text(t, ctx, "body"); !strings.Contains(home, "Alice") || !strings.Contains(home, "idle") {
		t.Fatalf("home page: %q", home)
	}
	must(t, "open the chat", chromedp.Do(ctx, clickNow(`a[href="/chat/4242"]`), chromedp.WaitVisible(`#live`)))
	chat := tgtest.PrivateChat(e.user)
	e.tg.SendMessage(e.user, chat, "please run the tests")
	must(t, "the live approval", chromedp.Do(ctx, chromedp.WaitVisible(`button[value="approve"]`)))
	if page := text(t, ctx, "#live"); !strings.Contains(page, "make test-everything") || !strings.Contains(page, "waiting for approval") {
		t.Errorf("the chat page: %q", page)
	}
	labels, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#live button")].map(b => b.textContent)`))
	must(t, "labels", err)
	if !contains(labels, "Approve") || !contains(labels, "Deny") {
		t.Errorf("buttons %q", labels)
	}
	must(t, "approve", chromedp.Do(ctx, clickNow(`button[value="approve"]`), chromedp.WaitVisible(`.answer`)))
	if page := text(t, ctx, "#live"); !strings.Contains(page, "the command ran") {
		t.Errorf("after Approve: %q", page)
	}
	e.tg.AwaitCall(hang, "editMessageText", func(c tgtest.Call) bool {
		return strings.Contains(c.Param("text"), "on the web") && !strings.Contains(c.Param("reply_markup"), "callback_data")
	})
	e.tg.AwaitCall(hang, "sendMessage", func(c tgtest.Call) bool { return strings.Contains(c.Param("text"), "the command ran") })

	must(t, "type a prompt", chromedp.Do(ctx, chromedp.SendKeys(`#text`, "hello from the page"), chromedp.Submit(`#text`),
		chromedp.WaitVisible(`#live`)))
	e.tg.AwaitCall(hang, "sendMessage", func(c tgtest.Call) bool { return strings.Contains(c.Param("text"), "on the web") })
	e.tg.AwaitCall(hang, "sendMessage", func(c tgtest.Call) bool { return strings.Contains(c.Param("text"), "echo: hello from the page") })
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.body.innerText.includes("echo: hello from the page")`))
	must(t, "the answer on the page", err)
}

func TestBrowserMiniApp(t *testing.T) {
	e := start(t)
	ctx := browser(t)
	good := web.SignInitData(e.token, e.user.ID, "Alice", time.Now())
	must(t, "Mini App sign-in", chromedp.Do(ctx,
		chromedp.Navigate(e.base+"/app#tgWebAppData="+urlQueryEscape(good)+"&tgWebAppVersion=8.0"),
		chromedp.WaitVisible(`ul.chats`)))
	if body := text(t, ctx, "body"); !strings.Contains(body, "Alice") {
		t.Fatalf("Mini App home: %q", body)
	}
	ctx2 := browser(t)
	stranger := web.SignInitData(e.token, 999, "Eve", time.Now())
	must(t, "a stranger's Mini App", chromedp.Do(ctx2, chromedp.Navigate(e.base+"/app#tgWebAppData="+urlQueryEscape(stranger))))
	_, err := chromedp.Run(ctx2, chromedp.Poll[bool](`document.getElementById("app-status").textContent.includes("Not allowed")`))
	must(t, "not allowed shown", err)
	if body := text(t, ctx2, "body"); strings.Contains(body, "Alice") || strings.Contains(body, "Chats") {
		t.Fatalf("a stranger saw: %q", body)
	}
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if strings.TrimSpace(s) == x {
			return true
		}
	}
	return false
}

func urlQueryEscape(s string) string {
	return strings.NewReplacer("%", "%25", "&", "%26", "=", "%3D", "#", "%23").Replace(s)
}
