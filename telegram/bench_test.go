package telegram_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/tgtest"
)

// BenchmarkApprovalRoundTrip measures, in process, the time from a button
// press to the decision written to Claude: the fake Bot API queues the
// callback_query (tgtest.PressButton), the bot's held getUpdates returns it
// over local HTTP, the router hands it to the broker, which calls Allow on
// the session; enginetest stamps that call (Session.Answers). So it is
// "press received by the bot → control_response written", plus the
// long-poll delivery, an upper bound. A enginetest session stands in for
// runner.Session, whose Allow is one JSON line written to a pipe (the
// runner's own tests cover that write); the bot's path is what is timed.
//
// Metrics: p50_ms and p99_ms of that round trip; ns/op is a whole cycle
// (prompt sent, pressed, answered, prompt edited).
func BenchmarkApprovalRoundTrip(b *testing.B) {
	tg := tgtest.New(b)
	user := tgtest.User{ID: 4242, FirstName: "Ada"}
	dm := tgtest.PrivateChat(user)
	var sess *enginetest.Session
	started := make(chan struct{})
	eng := &fakeEngine{script: func(tr *enginetest.Turn) {
		sess = tr.Session()
		close(started)
		tr.Start("m")
		for i := 0; ; i++ {
			d := tr.Ask(engine.ApprovalRequest{RequestID: fmt.Sprintf("req-%d", i), ToolName: "Bash",
				Input: []byte(`{"command":"make release"}`), ToolUseID: fmt.Sprintf("toolu_%d", i)})
			if !d.Allow {
				tr.Aborted()
				return
			}
		}
	}}
	store, err := prefs.Open(context.Background(), filepath.Join(b.TempDir(), "state.db"), prefs.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	runBenchBot(b, tg, user, eng, store, func(c *telegram.Config) { c.PressBurst = -1 }) // one press per cycle, thousands a second

	last := tg.SendMessage(user, dm, "deploy") // the newest message id looked at
	<-started
	var rtts []time.Duration
	b.ResetTimer()
	for b.Loop() {
		msgID, data := nextPrompt(b, tg, dm.ID, &last)
		n := len(sess.Answers())
		pressed := time.Now()
		tg.PressButton(user, dm, msgID, data)
		var ans []enginetest.Answer
		for ans = sess.Answers(); len(ans) == n; ans = sess.Answers() {
			time.Sleep(20 * time.Microsecond) // the session stamps the answer itself
		}
		rtts = append(rtts, ans[n].At.Sub(pressed))
	}
	b.StopTimer()
	slices.Sort(rtts)
	pct := func(p float64) float64 {
		i := min(int(p*float64(len(rtts))), len(rtts)-1)
		return float64(rtts[i]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50_ms")
	b.ReportMetric(pct(0.99), "p99_ms")
}

// nextPrompt waits for the next bot message with an Approve button after
// *last. Message ids grow by one per message in a chat, and the user sends
// nothing after the first message, so every id after it is the bot's.
func nextPrompt(b *testing.B, tg *tgtest.Server, chatID int64, last *int) (int, string) {
	b.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		for m, ok := tg.Message(chatID, *last+1); ok; m, ok = tg.Message(chatID, *last+1) {
			*last = m.ID
			for _, row := range m.Keyboard {
				for _, btn := range row {
					if strings.Contains(btn.Text, "Approve") {
						return m.ID, btn.CallbackData
					}
				}
			}
		}
		time.Sleep(20 * time.Microsecond)
	}
	b.Fatal("no approval prompt")
	return 0, ""
}

// runBenchBot runs a bot for a benchmark against tg (over loopback, unpaced)
// until the benchmark ends; opt adjusts its config.
func runBenchBot(b *testing.B, tg *tgtest.Server, user tgtest.User, eng *fakeEngine, store *prefs.Store, opt func(*telegram.Config)) {
	cfg := telegram.Config{
		Token: tg.Token(), APIURL: tg.URL(), AllowedUsers: []int64{user.ID}, PollTimeout: time.Second,
		ShutdownWait: 5 * time.Second, Config: chat.Config{WorkDir: "/work"},
		Outbox: outbox.Options{ChatInterval: -1, GroupPerMinute: -1, GlobalPerSecond: -1},
	}
	opt(&cfg)
	bot, err := telegram.New(cfg, eng, store, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- bot.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("bot.Run: %v", err)
		}
		store.Close()
	})
}
