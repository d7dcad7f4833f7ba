package telegram

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/host"
	"github.com/untether/untether/human"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/safefile"
	"github.com/untether/untether/telegram/view"
)

// Files users send: what a message carries, the download into the chat's
// upload folder, the text that tells Claude where they are, and the sweep
// that removes old ones.

// maxDownload is the Bot API's limit on files a bot may download (20 MB).
const maxDownload = 20 << 20

// downloadTimeout bounds one file's download; 20 MB over a slow link.
const downloadTimeout = 3 * time.Minute

// attachments lists the photo (largest size) and document of m. kind names
// content the bot cannot pass on (view.ContentSticker, ...), if any.
func attachments(m *models.Message) (files []prefs.File, kind string) {
	if n := len(m.Photo); n > 0 {
		best := m.Photo[0]
		for _, p := range m.Photo[1:] {
			if p.Width*p.Height > best.Width*best.Height {
				best = p
			}
		}
		files = append(files, prefs.File{Kind: "photo", FileID: best.FileID, Size: int64(best.FileSize),
			Width: best.Width, Height: best.Height, MIME: "image/jpeg"})
	}
	if d := m.Document; d != nil {
		files = append(files, prefs.File{Kind: "document", FileID: d.FileID, Name: d.FileName, MIME: d.MimeType, Size: d.FileSize})
	}
	// Recordings are transcribed (voice.go), not saved for Claude.
	switch {
	case m.Voice != nil:
		v := m.Voice
		files = append(files, prefs.File{Kind: kindVoice, FileID: v.FileID, MIME: v.MimeType, Size: v.FileSize, Duration: v.Duration})
	case m.Audio != nil:
		v := m.Audio
		files = append(files, prefs.File{Kind: kindAudio, FileID: v.FileID, Name: v.FileName, MIME: v.MimeType, Size: v.FileSize, Duration: v.Duration})
	case m.VideoNote != nil:
		v := m.VideoNote
		files = append(files, prefs.File{Kind: kindVideoNote, FileID: v.FileID, MIME: "video/mp4", Size: int64(v.FileSize), Duration: v.Duration})
	}
	switch {
	case m.Video != nil, m.Animation != nil:
		kind = view.ContentVideo
	case m.Sticker != nil:
		kind = view.ContentSticker
	case m.Location != nil, m.Venue != nil:
		kind = view.ContentLocation
	case m.Contact != nil:
		kind = view.ContentContact
	case m.Poll != nil:
		kind = view.ContentPoll
	}
	return files, kind
}

// tooBig returns the first file over the download limit.
func tooBig(files []prefs.File) (prefs.File, bool) {
	for _, f := range files {
		if f.Size > maxDownload {
			return f, true
		}
	}
	return prefs.File{}, false
}

// withFiles downloads the prompt's files into the session's upload folder
// and returns the text for Claude: the user's words, then where the files
// are (Claude reads them with its own tools; images included). The folder
// is on the host Claude works on.
func (b *Bot) withFiles(ctx context.Context, qp prefs.QueuedPrompt) (string, error) {
	m := b.core.MachineFor(qp.Key)
	if m.UploadDir == "" {
		return "", fmt.Errorf("%s has no upload folder: its home was not known when the bot started (restart the bot once it answers)", m.Name)
	}
	dir := m.UploadFolder(qp.Key)
	if err := m.Host.MkdirAll(ctx, dir, 0o700); err != nil {
		return "", fmt.Errorf("creating the upload folder: %w", err)
	}
	var lines []string
	for i, f := range qp.Files {
		path := filepath.Join(dir, fileName(qp.MessageID, i, f))
		if err := b.download(ctx, m.Host, f, path); err != nil {
			return "", fmt.Errorf("%s: %w", describeFile(f), err)
		}
		lines = append(lines, "- "+path+" ("+describeFile(f)+")")
	}
	text := strings.TrimSpace(qp.Text)
	if text == "" {
		text = "(The user sent only this, without a message.)"
	}
	noun := "a file"
	if len(lines) > 1 {
		noun = strconv.Itoa(len(lines)) + " files"
	}
	return text + "\n\n[The user attached " + noun + " in Telegram; saved on this machine:\n" +
		strings.Join(lines, "\n") + "]", nil
}

// download fetches one file through getFile and the Bot API's file URL,
// writing it to path on h atomically. Errors never hold the URL (it holds
// the token).
func (b *Bot) download(ctx context.Context, h host.Host, f prefs.File, path string) error {
	ctx, cancel := context.WithTimeout(ctx, downloadTimeout)
	defer cancel()
	tf, err := b.client.GetFile(ctx, &tgbot.GetFileParams{FileID: f.FileID})
	if err != nil {
		return b.api.wrap("getFile", err)
	}
	body, err := b.openFile(ctx, tf)
	if err != nil {
		return err
	}
	defer body.Close()
	// The folder again: the start-up sweep may have removed it, emptied,
	// since withFiles made it.
	if err := h.MkdirAll(ctx, filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("creating the upload folder: %w", err)
	}
	tmp, err := h.CreateTemp(ctx, filepath.Dir(path), ".part-*")
	if err != nil {
		return fmt.Errorf("saving: %w", err)
	}
	// After a successful rename there is nothing to remove; the removal
	// is tried even when ctx has ended.
	defer h.Remove(context.WithoutCancel(ctx), tmp.Name())
	n, err := io.Copy(tmp, io.LimitReader(body, maxDownload+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return fmt.Errorf("download: %s", b.redact(err.Error()))
	case n > maxDownload:
		return fmt.Errorf("larger than %d MB", maxDownload>>20)
	}
	if err := h.Rename(ctx, tmp.Name(), path); err != nil {
		return fmt.Errorf("saving: %w", err)
	}
	return nil
}

// openFile opens a file getFile described. A self-hosted Bot API server in
// --local mode answers with an absolute path on its own disk, which no
// download URL serves; the bot, on the same machine, reads it there.
func (b *Bot) openFile(ctx context.Context, tf *models.File) (io.ReadCloser, error) {
	if filepath.IsAbs(tf.FilePath) {
		if b.publicAPI() {
			// Telegram's own servers never answer so: do not let anyone
			// who could make it look so pick a file of this machine.
			return nil, errors.New("getFile gave a local path, which only a self-hosted Bot API server may do")
		}
		f, err := os.Open(tf.FilePath)
		if err != nil {
			return nil, fmt.Errorf("the Bot API server's local file: %w", err)
		}
		return f, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.client.FileDownloadLink(tf), nil)
	if err != nil {
		return nil, errors.New("bad download URL")
	}
	resp, err := b.files.Do(req)
	if err != nil {
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err
		}
		return nil, fmt.Errorf("download: %s", b.redact(err.Error()))
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("download: HTTP %d", resp.StatusCode)
	}
	return resp.Body, nil
}

// publicAPI tells whether api_url is Telegram's public Bot API.
func (b *Bot) publicAPI() bool {
	u, err := url.Parse(b.cfg.APIURL)
	return b.cfg.APIURL == "" || (err == nil && strings.EqualFold(u.Hostname(), "api.telegram.org"))
}

// fileName is "<message id>-<name>": unique per message, recognisable, and
// safe (no path, no control or shell-hostile characters).
func fileName(msgID, i int, f prefs.File) string {
	name := safefile.Name(filepath.Base(strings.ReplaceAll(f.Name, "\\", "/")))
	if name == "" || name == "." || name == "_" {
		name = "file"
		switch f.Kind {
		case "photo":
			name = "photo.jpg"
		case kindVoice, kindAudio, kindVideoNote:
			// A transcription API tells the format by the extension.
			name = f.Kind + recordingExt(f.MIME)
		}
	}
	prefix := strconv.Itoa(msgID)
	if i > 0 {
		prefix += "-" + strconv.Itoa(i)
	}
	return prefix + "-" + name
}

func describeFile(f prefs.File) string {
	var parts []string
	switch {
	case f.Kind == "photo":
		parts = append(parts, "photo")
		if f.Width > 0 {
			parts = append(parts, fmt.Sprintf("%d×%d", f.Width, f.Height))
		}
	case f.Name != "":
		// Whoever sent the file named it (anyone in a group, for a
		// replied one): it must not end the bot's note (inNote).
		parts = append(parts, inNote(f.Name, 128))
	default:
		parts = append(parts, "file")
	}
	if f.MIME != "" && f.Kind != "photo" {
		parts = append(parts, inNote(f.MIME, 64))
	}
	if f.Size > 0 {
		parts = append(parts, human.Bytes(f.Size))
	}
	return strings.Join(parts, ", ")
}
