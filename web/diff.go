package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/untether/untether/projects"
)

// The changes page: what the conversation's last turn changed (the files
// its footer counted, and the patch between the snapshots it compared),
// coloured line by line here; when no turn of this bot process measured
// one, what /diff shows (the uncommitted changes). Every line is text the
// template escapes; the colours are classes of the style sheet.

// diffLine is one line of a patch and its class.
type diffLine struct {
	Class string // add, del, hunk, meta, ""
	Text  string
}

// maxDiffLines bounds what one page shows of a patch.
const maxDiffLines = 5000

// diffLines classifies a unified diff's lines.
func diffLines(patch string) (lines []diffLine, cut bool) {
	patch = strings.TrimSuffix(patch, "\n")
	if patch == "" {
		return nil, false
	}
	meta := false // in a file's header (diff --git … +++)
	for l := range strings.SplitSeq(patch, "\n") {
		if len(lines) == maxDiffLines {
			return lines, true
		}
		c := ""
		switch {
		case strings.HasPrefix(l, "diff --git "):
			c, meta = "meta", true
		case strings.HasPrefix(l, "@@"):
			c, meta = "hunk", false
		case meta:
			c = "meta"
		case strings.HasPrefix(l, "+"):
			c = "add"
		case strings.HasPrefix(l, "-"):
			c = "del"
		}
		lines = append(lines, diffLine{Class: c, Text: l})
	}
	return lines, false
}

type fileView struct {
	Status, Path   string
	Added, Removed int
	Binary         bool
}

func filesView(files []projects.FileChange) []fileView {
	out := make([]fileView, len(files))
	for i, f := range files {
		out[i] = fileView{Status: f.Status, Path: f.Path, Added: f.Added, Removed: f.Removed, Binary: f.Binary()}
	}
	return out
}

// changes shows the last turn's diff (or the uncommitted changes).
func (s *Server) changes(w http.ResponseWriter, r *http.Request, sess *session) {
	key := r.PathValue("key")
	p, ok := s.place(r.Context(), sess.userID, key)
	if !ok {
		s.message(w, http.StatusNotFound, pageNoChat)
		return
	}
	data := map[string]any{"Title": s.title(r.Context(), sess, p), "Key": key}
	d, turn, err := s.core.LastTurnDiff(r.Context(), key)
	if err == nil && !turn {
		dir := s.core.Describe(key).WorkDir
		d.Dir = dir
		d.Files, d.Patch, d.Cut, err = s.core.MachineFor(key).Git.Uncommitted(r.Context(), dir)
	}
	switch {
	case errors.Is(err, projects.ErrNotRepo):
		data["NotRepo"] = true
	case err != nil:
		s.cfg.Log.Warn("web: git failed", "session_key", key, "err", err)
		s.message(w, http.StatusInternalServerError, pageGitFailed)
		return
	}
	lines, cut := diffLines(s.cfg.Redactor.String(d.Patch))
	data["Turn"], data["Dir"], data["Files"], data["Lines"], data["Cut"] = turn, d.Dir, filesView(d.Files), lines, cut || d.Cut
	s.render(w, http.StatusOK, "changes", data)
}
