package telegram

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
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

// voiceReplies sends the voice notes of answers; one per bot.
type voiceReplies struct {
	cfg      Speak
	api      *tgAPI
	store    *prefs.Store
	log      *slog.Logger
	redact   func(string) string
	stopping <-chan struct{} // closed when the bot stops: a synthesis under way ends
	guard    speak.Guard
	// slots bounds the syntheses at once across chats: a speech program
	// takes a core while it runs, and Claude's turns need the machine more.
	slots chan struct{}
}

// maxSpeaking is how many voice notes are made at once.
const maxSpeaking = 2

func newVoiceReplies(cfg Speak, b *Bot) *voiceReplies {
	if cfg.MaxChars <= 0 {
		cfg.MaxChars = DefaultSpeakChars
	}
	return &voiceReplies{cfg: cfg, api: b.api, store: b.store, log: b.log, redact: b.redact, stopping: b.stopping,
		slots: make(chan struct{}, maxSpeaking)}
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
	if v == nil || v.cfg.Speaker == nil || answerID == 0 || strings.TrimSpace(answer) == "" {
		return
	}
	switch mode, _ := v.mode(key); {
	case mode == view.SpeakOn:
	case mode == view.SpeakAuto && heard && !v.guard.Paused(key):
	default:
		return
	}
	// The same redaction as every message, on what is said.
	script := v.redact(speak.Script(answer, v.cfg.MaxChars))
	go v.say(key, pl, answerID, script)
}

// say makes and sends one voice note. A failing backend is logged and
// counted (speak.Guard); the chat hears of it only when auto is paused.
func (v *voiceReplies) say(key string, pl place, answerID int, script string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-v.stopping:
			cancel()
		case <-ctx.Done():
		}
	}()
	start := time.Now()
	select {
	case v.slots <- struct{}{}:
		defer func() { <-v.slots }()
	case <-ctx.Done():
		return // the bot stops
	}
	audio, err := v.cfg.Speaker.Speak(ctx, script)
	var length time.Duration
	if err == nil {
		// The backends check it too; a Speaker of another kind may not.
		// Telegram would show anything else as a broken note.
		length, err = speak.Check(audio)
	}
	if err != nil {
		v.log.Warn("voice reply not made: the answer stays text only", "chat_id", pl.ChatID,
			"err", v.redact(err.Error()), "not_opus", errors.Is(err, speak.ErrNotOpus))
		if v.guard.Failed(key) {
			v.log.Warn("voice replies to voice notes paused after failures in a row", "chat_id", pl.ChatID,
				"failures", speak.FailuresMax, "pause", speak.PauseFor)
			v.api.notify(pl, answerID, view.SpeakPaused(speak.FailuresMax, human.Duration(speak.PauseFor)))
		}
		return
	}
	v.guard.Succeeded(key)
	if err := v.api.sendVoice(ctx, pl, answerID, audio, length); err != nil && !errors.Is(err, outbox.ErrClosed) {
		v.log.Warn("voice reply not delivered", "chat_id", pl.ChatID, "err", v.redact(err.Error()))
		return
	}
	v.log.Debug("voice reply sent", "chat_id", pl.ChatID, "bytes", len(audio), "took", time.Since(start))
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
			b.speech.guard.Succeeded(key) // asked for again: a pause ends
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
