package tgtest_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/telegram/tgtest"
)

func upload(name string, data []byte) *models.InputFileUpload {
	return &models.InputFileUpload{Filename: name, Data: bytes.NewReader(data)}
}

func TestSendPhoto(t *testing.T) {
	s := tgtest.New(t, tgtest.WithChats(tgtest.PrivateChat(alice)))
	b := newBot(t, s)
	q := s.SendMessage(alice, tgtest.PrivateChat(alice), "show me")
	data := tgtest.PNG(400, 300)
	m, err := b.SendPhoto(t.Context(), &bot.SendPhotoParams{ChatID: alice.ID, Photo: upload("chart.png", data),
		Caption: "<b>The chart</b>", ParseMode: models.ParseModeHTML, ReplyParameters: &models.ReplyParameters{MessageID: q}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(m.Photo); n != 2 || m.Photo[1].Width != 400 || m.Photo[1].Height != 300 || m.Photo[0].Width != 90 {
		t.Fatalf("photo sizes %+v", m.Photo)
	}
	if m.Caption != "The chart" || len(m.CaptionEntities) != 1 || m.ReplyToMessage == nil || m.ReplyToMessage.ID != q {
		t.Errorf("caption %q %+v, reply %+v", m.Caption, m.CaptionEntities, m.ReplyToMessage)
	}
	got, _ := s.Message(alice.ID, m.ID)
	if d, ok := s.FileData(got.Photo[len(got.Photo)-1].FileID); !ok || !bytes.Equal(d, data) || got.Text != "The chart" {
		t.Errorf("stored %+v", got)
	}

	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"notes.png", []byte("not an image"), "IMAGE_PROCESS_FAILED"},
		{"tall.png", tgtest.PNG(10, 300), "PHOTO_INVALID_DIMENSIONS"},
		{"huge.png", tgtest.PNGHeader(6000, 5000), "PHOTO_INVALID_DIMENSIONS"},
		{"big.png", append(tgtest.PNG(10, 10), make([]byte, tgtest.MaxPhoto)...), "PHOTO_SAVE_FILE_INVALID"},
		{"empty.png", []byte{}, "file must be non-empty"},
	} {
		_, err := b.SendPhoto(t.Context(), &bot.SendPhotoParams{ChatID: alice.ID, Photo: upload(c.name, c.data)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
}

// A WebP header is read for its size (Telegram takes WebP photos).
func TestSendPhotoWebP(t *testing.T) {
	s := tgtest.New(t, tgtest.WithChats(tgtest.PrivateChat(alice)))
	b := newBot(t, s)
	// RIFF, size, WEBP, a VP8X chunk: flags, then width-1 and height-1 in 24 bits.
	webp := []byte("RIFF\x16\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00\x1f\x03\x00\x57\x02\x00")
	m, err := b.SendPhoto(t.Context(), &bot.SendPhotoParams{ChatID: alice.ID, Photo: upload("a.webp", webp)})
	if err != nil {
		t.Fatal(err)
	}
	if p := m.Photo[len(m.Photo)-1]; p.Width != 800 || p.Height != 600 {
		t.Errorf("size %dx%d", p.Width, p.Height)
	}
}

func TestSendMediaGroup(t *testing.T) {
	s := tgtest.New(t, tgtest.WithChats(tgtest.PrivateChat(alice)))
	b := newBot(t, s)
	q := s.SendMessage(alice, tgtest.PrivateChat(alice), "both charts")
	a, c := tgtest.PNG(20, 10), tgtest.PNG(30, 10)
	msgs, err := b.SendMediaGroup(t.Context(), &bot.SendMediaGroupParams{ChatID: alice.ID, Media: []models.InputMedia{
		&models.InputMediaPhoto{Media: "attach://a.png", MediaAttachment: bytes.NewReader(a), Caption: "first"},
		&models.InputMediaPhoto{Media: "attach://c.png", MediaAttachment: bytes.NewReader(c)},
	}, ReplyParameters: &models.ReplyParameters{MessageID: q}})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].MediaGroupID == "" || msgs[0].MediaGroupID != msgs[1].MediaGroupID || msgs[0].Caption != "first" {
		t.Fatalf("album %+v", msgs)
	}
	stored := s.Messages(alice.ID)
	for i, want := range [][]byte{a, c} {
		m := stored[len(stored)-2+i]
		if d, _ := s.FileData(m.Photo[len(m.Photo)-1].FileID); !bytes.Equal(d, want) || m.ReplyTo != q || m.Album != msgs[0].MediaGroupID {
			t.Errorf("item %d: %+v", i, m)
		}
	}

	docs, err := b.SendMediaGroup(t.Context(), &bot.SendMediaGroupParams{ChatID: alice.ID, Media: []models.InputMedia{
		&models.InputMediaDocument{Media: "attach://a.txt", MediaAttachment: strings.NewReader("a")},
		&models.InputMediaDocument{Media: "attach://b.csv", MediaAttachment: strings.NewReader("b")},
	}})
	if err != nil || len(docs) != 2 || docs[1].Document == nil || docs[1].Document.FileName != "b.csv" {
		t.Fatalf("documents %+v %v", docs, err)
	}

	one, err := b.SendMediaGroup(t.Context(), &bot.SendMediaGroupParams{ChatID: alice.ID, Media: []models.InputMedia{
		&models.InputMediaDocument{Media: "attach://only.txt", MediaAttachment: strings.NewReader("x")},
	}})
	if err != nil || len(one) != 1 || one[0].MediaGroupID != "" {
		t.Errorf("a single item %+v %v", one, err)
	}

	before := len(s.Messages(alice.ID))
	eleven := make([]models.InputMedia, 11)
	for i := range eleven {
		eleven[i] = &models.InputMediaDocument{Media: "attach://f" + string(rune('a'+i)), MediaAttachment: strings.NewReader("x")}
	}
	for name, media := range map[string][]models.InputMedia{
		"document can't be mixed with other media types": {
			&models.InputMediaPhoto{Media: "attach://p.png", MediaAttachment: bytes.NewReader(a)},
			&models.InputMediaDocument{Media: "attach://d.txt", MediaAttachment: strings.NewReader("d")},
		},
		"too many messages to send as an album": eleven,
		"IMAGE_PROCESS_FAILED": {
			&models.InputMediaPhoto{Media: "attach://p.png", MediaAttachment: bytes.NewReader(a)},
			&models.InputMediaPhoto{Media: "attach://bad.png", MediaAttachment: strings.NewReader("no")},
		},
	} {
		_, err := b.SendMediaGroup(t.Context(), &bot.SendMediaGroupParams{ChatID: alice.ID, Media: media})
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("err %v, want %q", err, name)
		}
	}
	if n := len(s.Messages(alice.ID)); n != before {
		t.Errorf("a refused album sent %d messages", n-before)
	}
}
