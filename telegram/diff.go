package telegram

import (
	"context"
	"errors"
	"strings"

	"github.com/untether/untether/projects"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// diffCommand shows the uncommitted changes of the chat's working
// directory (or of one file in it): a summary per file, then the diff as
// code, or as a .diff document when it does not fit in a message. It is
// measured by git (see projects.Git.Uncommitted), untracked files
// included, and redacted like every text the bot sends.
func (b *Bot) diffCommand(ctx context.Context, key string, pl place, replyTo int, arg string) {
	dir := b.chatDir(key, pl, replyTo)
	only := strings.TrimSpace(arg)
	var paths []string
	if only != "" {
		paths = []string{only}
	}
	files, patch, cut, err := b.core.MachineFor(key).Git.Uncommitted(ctx, dir, paths...)
	switch {
	case errors.Is(err, projects.ErrNotRepo):
		b.api.notify(pl, replyTo, view.NotARepo(dir))
		return
	case err != nil:
		b.log.Warn("/diff: git failed", "chat_id", pl.ChatID, "session_key", key, "err", err)
		b.api.notify(pl, replyTo, view.GitFailed(b.redact(err.Error())))
		return
	}
	summary := view.DiffSummary(dir, only, diffFiles(files))
	patch = b.redact(patch)
	if text, ok := view.DiffWithCode(summary, patch); ok && !cut || len(files) == 0 {
		if len(files) == 0 {
			text = summary
		}
		if _, err := b.api.send(ctx, pl, replyTo, text, nil, outbox.Normal); err != nil {
			b.log.Warn("could not send /diff", "chat_id", pl.ChatID, "err", err)
		}
		return
	}
	if !cut {
		if _, ok := b.rich.sendFolded(ctx, pl, replyTo, outbox.Normal, func() (string, bool) { return view.DiffRich(summary, patch) }); ok {
			return // one rich message, a file's diff per fold (rich.go)
		}
	}
	id, err := b.api.send(ctx, pl, replyTo, summary, nil, outbox.Normal)
	if err != nil {
		b.log.Warn("could not send /diff", "chat_id", pl.ChatID, "err", err)
		return
	}
	name := view.DiffFileName(dir, only)
	if _, err := b.api.sendDocument(ctx, pl, id, name, []byte(patch), view.DiffCaption(cut), outbox.Normal); err != nil {
		b.log.Warn("could not send the /diff document", "chat_id", pl.ChatID, "err", err)
	}
}

func diffFiles(files []projects.FileChange) []view.DiffFile {
	out := make([]view.DiffFile, len(files))
	for i, f := range files {
		out[i] = view.DiffFile{Status: f.Status, Path: f.Path, Added: f.Added, Removed: f.Removed}
	}
	return out
}
