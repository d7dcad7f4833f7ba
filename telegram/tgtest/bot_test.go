package tgtest_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/telegram/tgtest"
)

// These tests drive the fake through github.com/go-telegram/bot, which sends multipart/form-data with JSON
// inside form fields: what the project's bot will do.

var (
	alice = tgtest.User{ID: 1001, FirstName: "Alice", Username: "alice"}
	forum = tgtest.Forum(-1001234, "Work")
)

func newBot(t *testing.T, s *tgtest.Server, opts ...bot.Option) *bot.Bot {
	t.Helper()
	opts = append([]bot.Option{bot.WithServerURL(s.URL()), bot.WithErrorsHandler(func(error) {})}, opts...)
	b, err := bot.New(s.Token(), opts...)
	if err != nil {
		t.Fatalf("bot.New: %v", err)
	}
	return b
}

func TestBotLibrarySendEditDelete(t *testing.T) {
	s := tgtest.New(t, tgtest.WithChats(tgtest.PrivateChat(alice), forum))
	b := newBot(t, s) // bot.New calls getMe
	ctx := t.Context()
	if calls := s.CallsTo("getMe"); len(calls) != 1 || !calls[0].OK() {
		t.Fatalf("getMe calls %+v", calls)
	}

	q := s.SendMessage(alice, tgtest.PrivateChat(alice), "deploy?")
	kb := &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{
		{{Text: "Yes", CallbackData: "yes"}, {Text: "No", CallbackData: "no"}},
	}}
	m, err := b.SendMessage(ctx, &bot.SendMessageParams{
		ChatID: alice.ID, Text: "<b>Deploy</b> to <code>prod</code>?", ParseMode: models.ParseModeHTML,
		ReplyMarkup: kb, ReplyParameters: &models.ReplyParameters{MessageID: q},
	})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	if m.Text != "Deploy to prod?" || len(m.Entities) != 2 || m.ReplyToMessage == nil || m.ReplyToMessage.ID != q ||
		m.ReplyMarkup == nil || len(m.ReplyMarkup.InlineKeyboard[0]) != 2 {
		t.Fatalf("library decoded %+v", m)
	}
	got, ok := s.Message(alice.ID, m.ID)
	if !ok || got.ReplyTo != q || got.ParseMode != "HTML" || len(got.Keyboard) != 1 ||
		got.Keyboard[0][1] != (tgtest.Button{Text: "No", CallbackData: "no"}) {
		t.Fatalf("stored %+v", got)
	}
	if c := s.CallsTo("sendMessage")[0]; c.Int64("chat_id") != alice.ID || !strings.Contains(c.Param("reply_markup"), `"callback_data":"yes"`) {
		t.Fatalf("multipart params %+v", c.Params)
	}

	_, err = b.EditMessageText(ctx, &bot.EditMessageTextParams{ChatID: alice.ID, MessageID: m.ID,
		Text: "<b>Deploy</b> to <code>prod</code>?", ParseMode: models.ParseModeHTML, ReplyMarkup: kb})
	if !errors.Is(err, bot.ErrorBadRequest) || !strings.Contains(err.Error(), "message is not modified") {
		t.Fatalf("identical edit: %v", err)
	}
	if _, err := b.EditMessageText(ctx, &bot.EditMessageTextParams{ChatID: alice.ID, MessageID: m.ID, Text: "Deploying…"}); err != nil {
		t.Fatalf("EditMessageText: %v", err)
	}
	if got, _ := s.Message(alice.ID, m.ID); got.Text != "Deploying…" || got.Keyboard != nil || got.Edits != 1 {
		t.Fatalf("after edit %+v", got)
	}
	if _, err := b.EditMessageReplyMarkup(ctx, &bot.EditMessageReplyMarkupParams{ChatID: alice.ID, MessageID: m.ID, ReplyMarkup: kb}); err != nil {
		t.Fatalf("EditMessageReplyMarkup: %v", err)
	}
	if ok, err := b.DeleteMessage(ctx, &bot.DeleteMessageParams{ChatID: alice.ID, MessageID: m.ID}); !ok || err != nil {
		t.Fatalf("DeleteMessage: %v %v", ok, err)
	}
	_, err = b.DeleteMessage(ctx, &bot.DeleteMessageParams{ChatID: alice.ID, MessageID: m.ID})
	if !errors.Is(err, bot.ErrorBadRequest) || !strings.Contains(err.Error(), "message to delete not found") {
		t.Fatalf("second delete: %v", err)
	}

	_, err = b.SendMessage(ctx, &bot.SendMessageParams{ChatID: alice.ID, Text: "a <b> b", ParseMode: models.ParseModeHTML})
	if err == nil || !strings.Contains(err.Error(), "can't parse entities") {
		t.Fatalf("bad HTML: %v", err)
	}

	tm, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: forum.ID, MessageThreadID: 42, Text: "in topic"})
	if err != nil || tm.MessageThreadID != 42 || !tm.IsTopicMessage {
		t.Fatalf("topic send: %+v %v", tm, err)
	}

	ok, err = b.SetMyCommands(ctx, &bot.SetMyCommandsParams{Commands: []models.BotCommand{{Command: "cancel", Description: "Stop"}}})
	if !ok || err != nil || len(s.Commands()) != 1 {
		t.Fatalf("SetMyCommands: %v %v %+v", ok, err, s.Commands())
	}
	if ok, err := b.SendChatAction(ctx, &bot.SendChatActionParams{ChatID: alice.ID, Action: models.ChatActionTyping}); !ok || err != nil {
		t.Fatalf("SendChatAction: %v %v", ok, err)
	}
}

func TestBotLibraryErrors(t *testing.T) {
	s := tgtest.New(t, tgtest.WithChats(tgtest.PrivateChat(alice)))
	b := newBot(t, s, bot.WithSkipGetMe())
	ctx := t.Context()

	s.FailNext("sendMessage", 1, tgtest.TooManyRequests(12))
	_, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: alice.ID, Text: "x"})
	var tooMany *bot.TooManyRequestsError
	if !errors.As(err, &tooMany) || tooMany.RetryAfter != 12 {
		t.Fatalf("429: %v", err)
	}
	s.FailNext("sendMessage", 1, tgtest.BlockedByUser())
	if _, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: alice.ID, Text: "x"}); !errors.Is(err, bot.ErrorForbidden) {
		t.Fatalf("403: %v", err)
	}
	if _, err := b.SendMessage(ctx, &bot.SendMessageParams{ChatID: 999, Text: "x"}); err == nil || !strings.Contains(err.Error(), "chat not found") {
		t.Fatalf("unknown chat: %v", err)
	}

	wrong, err := bot.New("1:wrong", bot.WithServerURL(s.URL()))
	if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Fatalf("wrong token: %v %v", wrong, err)
	}
}

// TestBotLibraryPolling runs the library's long-polling loop against the fake: a user message and a button
// press reach the handler, its answers land in the fake's state, and cancelling stops the held poll.
func TestBotLibraryPolling(t *testing.T) {
	s := tgtest.New(t)
	chat := tgtest.PrivateChat(alice)
	var (
		mu    sync.Mutex
		texts []string
	)
	handler := func(ctx context.Context, b *bot.Bot, u *models.Update) {
		switch {
		case u.Message != nil:
			mu.Lock()
			texts = append(texts, u.Message.Text)
			mu.Unlock()
			_, _ = b.SendMessage(ctx, &bot.SendMessageParams{ // the test checks the outcome through the fake
				ChatID: u.Message.Chat.ID, Text: "Run it?",
				ReplyMarkup: &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{{{Text: "Run", CallbackData: "run"}}}},
			})
		case u.CallbackQuery != nil:
			_, _ = b.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: u.CallbackQuery.ID, Text: "Running"})
		}
	}
	b := newBot(t, s, bot.WithSkipGetMe(), bot.WithDefaultHandler(handler),
		bot.WithAllowedUpdates(bot.AllowedUpdates{"message", "callback_query"}))
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan struct{})
	go func() {
		b.Start(ctx)
		close(stopped)
	}()

	s.SendMessage(alice, chat, "/run tests")
	m := s.AwaitMessage(10*time.Second, alice.ID, func(m tgtest.Message) bool { return m.Text == "Run it?" })
	id := s.PressButton(alice, chat, m.ID, "run")
	s.Await(10*time.Second, "the callback answer", func() bool {
		a, ok := s.CallbackAnswer(id)
		return ok && a.Text == "Running"
	})
	if got := s.AllowedUpdates(); len(got) != 2 {
		t.Fatalf("allowed_updates recorded as %v", got)
	}
	// The library confirms what it received with its next poll's offset.
	s.Await(10*time.Second, "updates to be confirmed", func() bool { return s.PendingUpdates() == 0 })
	cancel()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("bot.Start did not return after cancel: the held getUpdates was not released")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(texts) != 1 || texts[0] != "/run tests" {
		t.Fatalf("handler saw %v", texts)
	}
}
