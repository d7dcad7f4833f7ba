package tgtest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/telegram/tgtest"
)

// memBot is go-telegram/bot reaching s through its in-memory Transport.
func memBot(t *testing.T, s *tgtest.Server, opts ...bot.Option) *bot.Bot {
	t.Helper()
	client := &http.Client{Transport: s.Transport(), Timeout: time.Minute}
	opts = append([]bot.Option{bot.WithServerURL(tgtest.MemoryURL), bot.WithHTTPClient(50*time.Second, client),
		bot.WithErrorsHandler(func(error) {})}, opts...)
	b, err := bot.New(s.Token(), opts...)
	if err != nil {
		t.Fatalf("bot.New: %v", err)
	}
	return b
}

// TestTransportBotLibraryInBubble runs the library's long polling, a multipart upload and a file download
// through Transport inside a synctest bubble: every wait is on the bubble's clock, so the test can say
// exactly how long the fake held the empty poll.
func TestTransportBotLibraryInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := tgtest.New(t, tgtest.InMemory())
		chat := tgtest.PrivateChat(alice)
		var (
			mu    sync.Mutex
			texts []string
		)
		handler := func(ctx context.Context, b *bot.Bot, u *models.Update) {
			if u.Message == nil {
				return
			}
			mu.Lock()
			texts = append(texts, u.Message.Text)
			mu.Unlock()
			_, _ = b.SendDocument(ctx, &bot.SendDocumentParams{ChatID: u.Message.Chat.ID, // checked through the fake
				Document: &models.InputFileUpload{Filename: "out.txt", Data: strings.NewReader("all green\n")}})
		}
		b := memBot(t, s, bot.WithDefaultHandler(handler), bot.WithAllowedUpdates(bot.AllowedUpdates{"message"}))
		if calls := s.CallsTo("getMe"); len(calls) != 1 || !calls[0].OK() {
			t.Fatalf("getMe through the transport: %+v", calls)
		}
		ctx, cancel := context.WithCancel(t.Context())
		stopped := make(chan struct{})
		go func() {
			b.Start(ctx)
			close(stopped)
		}()

		synctest.Wait() // the library's first poll is held now
		start := time.Now()
		s.SendMessage(alice, chat, "/run tests")
		m := s.AwaitMessage(time.Minute, alice.ID, func(m tgtest.Message) bool { return m.Document != nil })
		if data, _ := s.FileData(m.Document.FileID); m.Document.FileName != "out.txt" || string(data) != "all green\n" {
			t.Fatalf("multipart upload stored %+v: %q", m.Document, data)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("a held poll answered the new update after %v, want at once", waited)
		}

		// Nothing pending: the library's poll is held for its whole timeout (a second under the client's 50 s),
		// on the bubble's clock.
		synctest.Wait()
		polls := len(s.CallsTo("getUpdates"))
		time.Sleep(49*time.Second - time.Nanosecond)
		synctest.Wait()
		if n := len(s.CallsTo("getUpdates")); n != polls {
			t.Fatalf("%d polls answered before the 49 s timeout", n-polls)
		}
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		if last := s.CallsTo("getUpdates")[polls]; !last.OK() || string(last.Response) != `{"ok":true,"result":[]}` {
			t.Fatalf("empty poll at its timeout answered %d %s", last.Status, last.Response)
		}

		cancel()
		<-stopped // returns at all: leaving released the held poll
		mu.Lock()
		defer mu.Unlock()
		if len(texts) != 1 || texts[0] != "/run tests" {
			t.Fatalf("handler saw %v", texts)
		}
	})
}

func TestTransportDownloadAndFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := tgtest.New(t, tgtest.InMemory(), tgtest.WithChats(tgtest.PrivateChat(alice)))
		b := memBot(t, s, bot.WithSkipGetMe())
		ctx := t.Context()
		client := &http.Client{Transport: s.Transport()}

		sent, err := b.SendDocument(ctx, &bot.SendDocumentParams{ChatID: alice.ID,
			Document: &models.InputFileUpload{Filename: "app.log", Data: strings.NewReader("line 1\n")}})
		if err != nil {
			t.Fatal(err)
		}
		f, err := b.GetFile(ctx, &bot.GetFileParams{FileID: sent.Document.FileID})
		if err != nil {
			t.Fatal(err)
		}
		res, err := client.Get(b.FileDownloadLink(f))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !bytes.Equal(data, []byte("line 1\n")) {
			t.Fatalf("download %d %q", res.StatusCode, data)
		}

		s.FailNext("sendMessage", 1, tgtest.Failure{Drop: true})
		if _, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: alice.ID, Text: "x"}); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("dropped call: %v, want an unexpected EOF", err)
		}

		s.FailNext("sendMessage", 1, tgtest.Failure{Hang: true})
		hung, cancel := context.WithTimeout(ctx, 7*time.Second)
		defer cancel()
		start := time.Now()
		if _, err := b.SendMessage(hung, &bot.SendMessageParams{ChatID: alice.ID, Text: "x"}); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("hung call: %v, want the caller's deadline", err)
		}
		if waited := time.Since(start); waited != 7*time.Second {
			t.Errorf("hung call gave up after %v, want 7 s", waited)
		}
		calls := s.CallsTo("sendMessage")
		if len(calls) != 2 || calls[0].Status != 0 || calls[1].Status != 0 {
			t.Fatalf("recorded %+v", calls)
		}

		if _, err := client.Get("https://api.telegram.org/bot" + s.Token() + "/getMe"); err == nil ||
			!strings.Contains(err.Error(), "serves "+tgtest.MemoryURL) {
			t.Fatalf("a request for another host: %v", err)
		}
	})
}
