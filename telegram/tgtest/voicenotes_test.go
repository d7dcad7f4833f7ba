package tgtest_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/speak/speaktest"
	"github.com/untether/untether/telegram/tgtest"
)

// TestSendVoice: an uploaded OGG/Opus recording becomes a voice note
// replying where reply_parameters says, its bytes kept as sent and its
// length read from the file (granule position less pre-skip at 48 kHz);
// bytes that are not OGG/Opus arrive without the audio/ogg type, and a
// call without the file is refused.
func TestSendVoice(t *testing.T) {
	s := tgtest.New(t, tgtest.WithChats(tgtest.PrivateChat(alice)))
	b := newBot(t, s)
	q := s.SendMessage(alice, tgtest.PrivateChat(alice), "tell me")
	audio := speaktest.Say(t, "One two three four five six seven eight nine ten.")
	m, err := b.SendVoice(t.Context(), &bot.SendVoiceParams{ChatID: alice.ID,
		Voice:           &models.InputFileUpload{Filename: "answer.ogg", Data: bytes.NewReader(audio)},
		ReplyParameters: &models.ReplyParameters{MessageID: q}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Voice == nil || m.Voice.MimeType != "audio/ogg" || m.Voice.Duration < 2 || m.Voice.Duration > 10 {
		t.Fatalf("voice %+v", m.Voice)
	}
	if m.ReplyToMessage == nil || m.ReplyToMessage.ID != q {
		t.Errorf("reply to %+v, want %d", m.ReplyToMessage, q)
	}
	got := s.Voices(alice.ID)
	if len(got) != 1 || got[0].ReplyTo != q {
		t.Fatalf("voices %+v", got)
	}
	data, _ := s.FileData(got[0].Voice.FileID)
	d, err := tgtest.OggOpus(data)
	if !bytes.Equal(data, audio) || err != nil || d < 2*time.Second {
		t.Errorf("stored %d bytes (sent %d), duration %v, err %v", len(data), len(audio), d, err)
	}

	m, err = b.SendVoice(t.Context(), &bot.SendVoiceParams{ChatID: alice.ID,
		Voice: &models.InputFileUpload{Filename: "answer.mp3", Data: bytes.NewReader([]byte("ID3 not opus"))}})
	if err != nil || m.Voice == nil || m.Voice.MimeType != "" {
		t.Errorf("a non-Opus upload: %+v, %v", m, err)
	}
	if _, err := tgtest.OggOpus([]byte("ID3 not opus")); err == nil {
		t.Error("OggOpus took an MP3")
	}
	_, err = b.SendVoice(t.Context(), &bot.SendVoiceParams{ChatID: alice.ID, Voice: &models.InputFileString{Data: "no-such-file"}})
	if err == nil || !strings.Contains(err.Error(), "wrong file identifier") {
		t.Errorf("a voice by an unknown file_id: %v", err)
	}
}
