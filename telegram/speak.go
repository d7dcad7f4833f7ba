package telegram

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/human"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/speak"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// Voice replies: after a final answer's text is delivered, the answer made
// for the ear (package speak) follows as a voice note replying to it, per
// chat /speak on|off|auto (auto: answers to voice notes). The text is the
// record and goes first; the voice note is made off the turn's path and
// sent at low priority, so it never delays the text or the next turn, and
// a backend that fails costs nothing but the note.

// Speak is how the bot answers aloud ([voice] speak_*).
type Speak struct {
	// Speaker makes OGG/Opus of text; nil: no voice replies.
	Speaker speak.Speaker
	// MaxChars bounds what is spoken of an answer (a closing line says the
	// rest is in the message); default 90 seconds of speech.
	MaxChars int
}

// DefaultSpeakChars is about 90 seconds of speech.
const DefaultSpeakChars = 90 * speak.CharsPerSecond

// voiceReplies sends the voice notes of answers (speak.Replier makes
// them); one per bot.
type voiceReplies struct {
	cfg      Speak
	api      *tgAPI
	store    *prefs.Store
	log      *slog.Logger
	stopping <-chan struct{} // closed when the bot stops: a synthesis under way ends
	replier  *speak.Replier
}

func newVoiceReplies(cfg Speak, b *Bot) *voiceReplies {
	if cfg.MaxChars <= 0 {
		cfg.MaxChars = DefaultSpeakChars
	}
	return &voiceReplies{cfg: cfg, api: b.api, store: b.store, log: b.log, stopping: b.stopping,
		replier: speak.NewReplier(cfg.Speaker, cfg.MaxChars, b.redact, b.log)}
}

// mode is key's /speak choice and where it comes from; auto by default.
func (v *voiceReplies) mode(key string) (mode, source string) {
	p, err := v.store.Prefs(key)
	if err != nil {
		v.log.Warn("could not read chat settings", "session_key", key, "err", err)
	}
	if view.ValidSpeak(p.Speak) {
		return p.Speak, view.SourceChat
	}
	return view.SpeakAuto, view.SourceDefault
}

// follow sends answer (Claude's Markdown) as a voice note replying to the
// answer's message answerID, when the chat's mode wants one: heard says
// the prompt was a recording. It returns at once.
func (v *voiceReplies) follow(key string, pl place, heard bool, answerID int, answer string) {
	if v == nil || !v.replier.On() || answerID == 0 {
		return
	}
	mode, _ := v.mode(key)
	v.replier.Follow(v.stopping, speak.Note{Key: key, Mode: mode, Heard: heard, Answer: answer,
		Deliver: func(ctx context.Context, audio []byte, length time.Duration) error {
			err := v.api.sendVoice(ctx, pl, answerID, audio, length)
			if errors.Is(err, outbox.ErrClosed) {
				return nil
			}
			return err
		},
		Paused: func() {
			v.api.notify(pl, answerID, view.SpeakPaused(speak.FailuresMax, human.Duration(speak.PauseFor)))
		}})
}

// sendVoice uploads OGG/Opus audio as a voice note replying to replyTo,
// at low priority: it yields to every answer and prompt.
func (api *tgAPI) sendVoice(ctx context.Context, p place, replyTo int, audio []byte, length time.Duration) error {
	return api.out.Send(ctx, outbox.Job{ChatID: p.ChatID, Priority: outbox.Low, Do: func(ctx context.Context) error {
		var reply *models.ReplyParameters
		if replyTo != 0 {
			reply = &models.ReplyParameters{MessageID: replyTo, AllowSendingWithoutReply: true}
		}
		// A fresh reader per attempt: the outbox may retry.
		_, err := api.client.SendVoice(ctx, &tgbot.SendVoiceParams{ChatID: p.ChatID, MessageThreadID: p.Thread,
			Voice:    &models.InputFileUpload{Filename: "answer.ogg", Data: bytes.NewReader(audio)},
			Duration: int((length + time.Second/2) / time.Second), ReplyParameters: reply})
		return api.wrap("sendVoice", err)
	}})
}

// speakCommand is /speak: when this chat's answers also come as voice
// notes.
func (b *Bot) speakCommand(key, arg string) string {
	var err error
	switch {
	case arg == "" || arg == "show":
	case arg == "clear":
		err = b.store.SetSpeak(key, "")
	case view.ValidSpeak(arg):
		err = b.store.SetSpeak(key, arg)
		if arg == view.SpeakAuto {
			b.speech.replier.Resume(key) // asked for again: a pause ends
		}
	default:
		return view.UsageSpeak
	}
	if err != nil {
		return view.SettingNotSaved(b.redact(err.Error()))
	}
	mode, source := b.speech.mode(key)
	if arg == "" || arg == "show" {
		return view.SpeakShow(mode, source, b.cfg.Speak.Speaker != nil)
	}
	return view.SpeakSet(mode, source, b.cfg.Speak.Speaker != nil)
}
