package telegram

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/untether/untether/host"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
	"github.com/untether/untether/voice"
)

// Voice notes, audio files and video notes become prompts: the recording
// is downloaded, transcribed (package voice), shown to the user ("🎙 …",
// so a misheard prompt can be cancelled) and run as the prompt's text.

// Kinds of prefs.File that are recordings.
const (
	kindVoice     = "voice"
	kindAudio     = "audio"
	kindVideoNote = "video_note"
)

// Voice is how the bot hears recordings.
type Voice struct {
	// Transcriber turns a recording into text; nil: recordings are
	// answered with a hint how to turn transcription on.
	Transcriber voice.Transcriber
	// MaxDuration and MaxSize bound what is transcribed; default 10
	// minutes and 20 MB (what a bot may download).
	MaxDuration time.Duration
	MaxSize     int64
}

func (v *Voice) defaults() {
	if v.MaxDuration <= 0 {
		v.MaxDuration = 10 * time.Minute
	}
	if v.MaxSize <= 0 || v.MaxSize > maxDownload {
		v.MaxSize = maxDownload
	}
}

func isRecording(f prefs.File) bool {
	return f.Kind == kindVoice || f.Kind == kindAudio || f.Kind == kindVideoNote
}

func hasRecording(files []prefs.File) bool {
	for _, f := range files {
		if isRecording(f) {
			return true
		}
	}
	return false
}

// recordingExt is the file extension for a recording's MIME type.
func recordingExt(mt string) string {
	switch strings.ToLower(mt) {
	case "audio/ogg", "":
		return ".ogg" // Telegram's voice notes: OGG/Opus
	case "video/mp4":
		return ".mp4"
	case "audio/mpeg":
		return ".mp3"
	}
	if exts, _ := mime.ExtensionsByType(mt); len(exts) > 0 {
		return exts[0]
	}
	return ".ogg"
}

// recordingRefusal says why the recordings among files will not be
// transcribed ("" when they will): no backend, or over a limit.
func (b *Bot) recordingRefusal(files []prefs.File) string {
	v := b.cfg.Voice
	for _, f := range files {
		if !isRecording(f) {
			continue
		}
		d := time.Duration(f.Duration) * time.Second
		switch {
		case v.Transcriber == nil:
			return view.VoiceOff
		case d > v.MaxDuration:
			return view.VoiceTooLong(d, v.MaxDuration)
		case f.Size > v.MaxSize:
			return view.VoiceTooBig(f.Size, v.MaxSize)
		}
	}
	return ""
}

// errNoWords: the transcription came back empty.
var errNoWords = errors.New("no words were heard")

// transcribeError is a failing backend, as opposed to a failed download.
type transcribeError struct{ err error }

func (e transcribeError) Error() string { return e.err.Error() }

// withVoice transcribes the prompt's recordings, tells the user what was
// heard, and returns the prompt with the transcript as its text (after
// the caption, if any) and only its other files. The recordings are
// removed once heard.
func (b *Bot) withVoice(ctx context.Context, p place, qp prefs.QueuedPrompt) (prefs.QueuedPrompt, error) {
	// Recordings are heard on the bot's machine, where the transcriber
	// runs, whichever machine Claude works on.
	dir := b.machines.Local().UploadFolder(qp.Key)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return qp, fmt.Errorf("creating the upload folder: %w", err)
	}
	var heard []string
	var rest []prefs.File
	for i, f := range qp.Files {
		if !isRecording(f) {
			rest = append(rest, f)
			continue
		}
		path := filepath.Join(dir, fileName(qp.MessageID, i, f))
		// The recording is heard here, by this machine's transcriber:
		// it is saved here whatever host Claude works on.
		if err := b.download(ctx, host.Local{}, f, path); err != nil {
			return qp, fmt.Errorf("%s: %w", describeFile(f), err)
		}
		text, err := b.cfg.Voice.Transcriber.Transcribe(ctx, path)
		_ = os.Remove(path) // heard: the recording is not kept
		if err != nil {
			return qp, transcribeError{err}
		}
		if text = strings.TrimSpace(text); text != "" {
			heard = append(heard, text)
		}
	}
	if len(heard) == 0 {
		return qp, errNoWords
	}
	transcript := strings.Join(heard, "\n\n")
	// Waited for: the user sees what was heard before Claude answers.
	if _, err := b.api.send(ctx, p, qp.MessageID, view.VoiceHeard(transcript), nil, outbox.High); err != nil {
		b.log.Warn("could not show what was heard", "chat_id", p.ChatID, "err", err)
	}
	if caption := strings.TrimSpace(qp.Text); caption != "" {
		transcript = caption + "\n\n" + transcript
	}
	qp.Text, qp.Files = transcript, rest
	return qp, nil
}

// voiceErrorView tells a turn whose recording could not be heard.
func (b *Bot) voiceErrorView(err error) view.TurnError {
	var te transcribeError
	switch {
	case errors.Is(err, errNoWords):
		return view.VoiceEmpty()
	case errors.As(err, &te):
		return view.VoiceFailed(b.redact(te.Error()))
	}
	return view.DownloadFailed(err.Error())
}
