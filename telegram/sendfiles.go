package telegram

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/untether/untether/filesend"
	"github.com/untether/untether/host"
	"github.com/untether/untether/human"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// Files going to the chat: those Claude sends with the send_file tool
// (package filesend hands them over, checked and read) and those /get
// asks for. An image small enough goes as a photo, anything else as a
// document; files sent together go as albums where Telegram allows.

// photoExts are the images Telegram shows as photos.
var photoExts = []string{".png", ".jpg", ".jpeg", ".webp", ".gif"}

func asPhoto(name string, size int) bool {
	return size < maxPhoto && slices.Contains(photoExts, strings.ToLower(filepath.Ext(name)))
}

// deliverFiles is the bot's filesend.Deliver: the files go to the
// session's chat, answering the prompt of the running turn.
func (b *Bot) deliverFiles(ctx context.Context, key string, files []filesend.File) []error {
	pl, replyTo, ok := b.core.Answering(key)
	if !ok {
		errs := make([]error, len(files))
		for i := range errs {
			errs[i] = errors.New("the chat this session belongs to is not active")
		}
		return errs
	}
	return b.sendFiles(ctx, pl, replyTo, files)
}

// sendFiles sends files to p, replying to replyTo, and returns one error
// per file (nil: delivered). Photos go together as albums, documents
// too (Telegram groups documents only with documents), each album of at
// most maxAlbum files and maxUpload bytes.
func (b *Bot) sendFiles(ctx context.Context, p place, replyTo int, files []filesend.File) []error {
	errs := make([]error, len(files))
	ups := make([]upload, len(files))
	var photos, docs []int
	for i, f := range files {
		ups[i] = upload{name: f.Name, data: f.Data, caption: view.FileCaption(b.redact(f.Caption)), photo: asPhoto(f.Name, len(f.Data))}
		switch {
		case len(f.Data) > maxUpload:
			errs[i] = fmt.Errorf("%s is %s; Telegram takes files of up to %s from a bot", f.Name, human.Bytes(int64(len(f.Data))), human.Bytes(maxUpload))
		case ups[i].photo:
			photos = append(photos, i)
		default:
			docs = append(docs, i)
		}
	}
	for _, group := range [][]int{photos, docs} {
		for _, album := range albums(group, ups) {
			if len(album) == 1 {
				errs[album[0]] = b.sendOne(ctx, p, replyTo, ups[album[0]])
				continue
			}
			items := make([]upload, len(album))
			for j, i := range album {
				items[j] = ups[i]
			}
			err := b.api.sendAlbum(ctx, p, replyTo, items, outbox.Normal)
			if err == nil {
				continue
			}
			if errors.Is(err, outbox.ErrClosed) || ctx.Err() != nil {
				for _, i := range album {
					errs[i] = err
				}
				continue
			}
			// One bad item fails the album: send them one by one, so the
			// others arrive and each error names its own file.
			b.log.Warn("telegram refused an album, sending its files one by one", "chat_id", p.ChatID, "files", len(album), "err", err)
			for _, i := range album {
				errs[i] = b.sendOne(ctx, p, replyTo, ups[i])
			}
		}
	}
	return errs
}

// albums cuts a group of files into albums Telegram takes.
func albums(group []int, ups []upload) [][]int {
	var out [][]int
	var cur []int
	size := 0
	for _, i := range group {
		n := len(ups[i].data)
		if len(cur) == maxAlbum || (len(cur) > 0 && size+n > maxUpload) {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, i)
		size += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// sendOne sends one file; an image Telegram will not take as a photo
// (its dimensions, its format) goes as a document instead.
func (b *Bot) sendOne(ctx context.Context, p place, replyTo int, u upload) error {
	_, err := b.api.sendUpload(ctx, p, replyTo, u, outbox.Normal)
	if err != nil && u.photo && photoRefused(err) {
		b.log.Info("telegram refused an image as a photo, sending it as a file", "chat_id", p.ChatID, "err", err)
		u.photo = false
		_, err = b.api.sendUpload(ctx, p, replyTo, u, outbox.Normal)
	}
	return err
}

func photoRefused(err error) bool {
	e := err.Error()
	return strings.Contains(e, "PHOTO_INVALID_DIMENSIONS") || strings.Contains(e, "IMAGE_PROCESS_FAILED") ||
		strings.Contains(e, "PHOTO_SAVE_FILE_INVALID") || strings.Contains(e, "PHOTO_EXT_INVALID")
}

// folderListed is how many of a folder's files /get names.
const folderListed = 8

// getCommand is /get PATH: a file of the chat's project, by the same path
// rule as the files Claude reads and sends.
func (b *Bot) getCommand(ctx context.Context, key string, pl place, replyTo int, arg string) {
	if arg == "" {
		b.api.notify(pl, replyTo, view.GetUsage)
		return
	}
	// The chat's directory as checked now, links resolved (WorkDirResolved:
	// a link put in its place after the check is not followed).
	m := b.core.MachineFor(key)
	rule := b.broker.PathRule(m.ResolvedDir(b.chatDir(key, pl, replyTo)), m.UploadFolder(key), m.Where())
	rule.WorkDirResolved = true
	f, err := filesend.Read(ctx, rule, arg, maxUpload)
	var pe *filesend.PathError
	switch {
	case errors.As(err, &pe) && pe.Kind == filesend.Folder:
		names, more := folderFiles(ctx, rule.On(), pe.Path)
		b.api.notify(pl, replyTo, view.GetFolder(b.redact(pe.Path), names, more))
		return
	case err != nil:
		b.log.Info("/get refused", "chat_id", pl.ChatID, "session_key", key, "err", err)
		b.api.notify(pl, replyTo, view.GetRefused(b.redact(err.Error())))
		return
	}
	if err := b.sendFiles(ctx, pl, replyTo, []filesend.File{f})[0]; err != nil && !errors.Is(err, outbox.ErrClosed) {
		b.log.Warn("/get not sent", "chat_id", pl.ChatID, "path", f.Path, "err", err)
		b.api.notify(pl, replyTo, view.GetNotSent(b.redact(err.Error())))
	}
}

// folderFiles names the first files of dir on h (sorted; folders and
// hidden files left out), and whether there are more.
func folderFiles(ctx context.Context, h host.Host, dir string) (names []string, more bool) {
	// The folder may have become a FIFO since it was checked: never wait.
	entries, err := h.ReadDir(ctx, dir)
	if err != nil {
		return nil, false
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if len(names) == folderListed {
			return names, true
		}
		names = append(names, e.Name())
	}
	return names, false
}
