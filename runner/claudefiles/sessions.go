package claudefiles

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/host"
	"github.com/untether/untether/safefile"
)

// Claude Code's own session store, as measured with CLI 2.1.330 (see
// docs/protocol.md, "Claude Code's session store"): one JSON-lines file per
// session, <config dir>/projects/<encoded working dir>/<session id>.jsonl,
// written by every Claude Code the owner runs, in a terminal or from this
// bot.

// ConfigDir is Claude Code's configuration directory for a process with the
// given environment (KEY=VALUE entries, later ones winning): the
// CLAUDE_CONFIG_DIR variable, else .claude in HOME.
func ConfigDir(env []string) string {
	var dir, home string
	for _, kv := range env {
		switch k, v, _ := strings.Cut(kv, "="); k {
		case "CLAUDE_CONFIG_DIR":
			dir = v
		case "HOME":
			home = v
		}
	}
	if dir != "" {
		return dir
	}
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".claude")
}

// maxEncoded is the longest folder name Claude Code uses for a working
// directory before it cuts the name and adds a hash.
const maxEncoded = 200

// EncodeDir is the name of the folder Claude Code keeps a working
// directory's sessions in: every UTF-16 unit that is not an ASCII letter or
// digit becomes "-" ("/home/me/my proj" → "-home-me-my-proj"); a name
// longer than 200 is cut to 200 and followed by "-" and a hash of the whole
// path (Java's String.hashCode, absolute, in base 36).
func EncodeDir(dir string) string {
	units := utf16.Encode([]rune(dir))
	var b strings.Builder
	for _, u := range units {
		if u < 128 && (u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9') {
			b.WriteByte(byte(u))
		} else {
			b.WriteByte('-')
		}
	}
	name := b.String()
	if len(name) <= maxEncoded {
		return name
	}
	var h int32
	for _, u := range units {
		h = 31*h + int32(u)
	}
	abs := int64(h)
	if abs < 0 {
		abs = -abs
	}
	return name[:maxEncoded] + "-" + strconv.FormatInt(abs, 36)
}

// SessionsDir is the folder of dir's sessions in the store at configDir.
func SessionsDir(configDir, dir string) string {
	return filepath.Join(configDir, "projects", EncodeDir(dir))
}

// ListSessions returns the sessions of the working directory dir, newest
// first, at most limit of them (0: all): those its folder holds that
// started in dir (engine.PastSession.BelongsTo). A folder that does not exist is an
// empty list. Files that cannot be read are skipped.
func ListSessions(ctx context.Context, h host.Host, configDir, dir string, limit int) ([]engine.PastSession, error) {
	folder := SessionsDir(configDir, dir)
	entries, err := host.Or(h).ReadDir(ctx, folder)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read Claude Code's sessions of %s: %w", dir, err)
	}
	var list []engine.PastSession
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || e.IsDir() || !validID(id) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		list = append(list, engine.PastSession{ID: id, Modified: fi.ModTime(), Size: fi.Size()})
	}
	slices.SortFunc(list, func(a, b engine.PastSession) int { return b.Modified.Compare(a.Modified) })
	// Files are read newest first until limit of dir's own are found: a
	// long-used directory has hundreds.
	var mine []engine.PastSession
	for _, e := range list {
		if limit > 0 && len(mine) == limit {
			break
		}
		s, err := ReadSession(ctx, h, configDir, dir, e.ID)
		if err != nil || !s.BelongsTo(dir) {
			continue // another directory's, or unreadable
		}
		e.FirstPrompt, e.Turns, e.Dir = s.FirstPrompt, s.Turns, s.Dir
		mine = append(mine, e)
	}
	return mine, nil
}

// validID accepts what Claude Code names sessions (UUIDs) and little more
// (letters, digits, "-", "_"), so a session id from a file name or a button
// can never be a path or a flag.
func validID(id string) bool {
	if len(id) == 0 || len(id) > 100 || id[0] == '-' {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// StatSession returns the session's file time and size without reading it;
// ok is false when the store has no such session for dir.
func StatSession(h host.Host, configDir, dir, id string) (engine.PastSession, bool) {
	if !validID(id) {
		return engine.PastSession{}, false
	}
	fi, err := host.Or(h).Stat(context.Background(), filepath.Join(SessionsDir(configDir, dir), id+".jsonl"))
	if err != nil || !fi.Mode().IsRegular() {
		return engine.PastSession{}, false
	}
	return engine.PastSession{ID: id, Modified: fi.ModTime(), Size: fi.Size()}, true
}

// maxScanLine bounds the lines read in full; longer ones (a tool result
// with a whole file) are skipped unread, since a prompt is never that long
// in practice and skipping keeps a listing cheap.
const maxScanLine = 1 << 20

// ReadSession reads one session's file: its first prompt, turn count and
// the directory it started in. It does not check that directory: callers
// that offer the session to a chat check BelongsTo.
func ReadSession(ctx context.Context, h host.Host, configDir, dir, id string) (engine.PastSession, error) {
	if !validID(id) {
		return engine.PastSession{}, fmt.Errorf("no session %s of %s in the Claude Code store", id, dir)
	}
	// By the host's safe open: the store is written by Claude's
	// processes, so a FIFO in a session file's place is refused, never
	// waited on; the scan is bounded by ctx (safefile.Within).
	s, err := safefile.Within(ctx, func() (engine.PastSession, error) {
		f, fi, err := host.Or(h).Open(ctx, filepath.Join(SessionsDir(configDir, dir), id+".jsonl"), 0)
		if err != nil {
			return engine.PastSession{}, err
		}
		defer f.Close()
		s := engine.PastSession{ID: id, Modified: fi.ModTime(), Size: fi.Size()}
		s.FirstPrompt, s.Turns, s.Dir, err = scanPrompts(f)
		return s, err
	})
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, host.ErrNotRegular) {
		return engine.PastSession{}, fmt.Errorf("no session %s of %s in the Claude Code store", id, dir)
	}
	if err != nil {
		return engine.PastSession{}, fmt.Errorf("read session %s: %w", id, err)
	}
	return s, nil
}

// transcriptLine is what a session file's line says about prompts.
type transcriptLine struct {
	Type             string `json:"type"`
	IsMeta           bool   `json:"isMeta"`
	IsSidechain      bool   `json:"isSidechain"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	Message          struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// scanPrompts counts the user's prompts in a session file and returns the
// first. A prompt is a "user" line that is not meta (an expanded command's
// body, a caveat), not a subagent's, not a compaction summary, not tool
// results, and not the record of a command Claude Code ran locally (those
// follow a <local-command-caveat> line). cwd is the first line's that
// records one.
func scanPrompts(r io.Reader) (first string, turns int, cwd string, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	local := false
	for {
		line, err := readLine(br)
		if cwd == "" && bytes.Contains(line, []byte(`"cwd"`)) {
			var l struct {
				Cwd string `json:"cwd"`
			}
			if json.Unmarshal(line, &l) == nil {
				cwd = l.Cwd
			}
		}
		if len(line) > 0 && bytes.Contains(line, []byte(`"type":"user"`)) {
			var l transcriptLine
			if json.Unmarshal(line, &l) == nil && l.Type == "user" && !l.IsSidechain && !l.IsCompactSummary {
				text, isText := contentText(l.Message.Content)
				switch {
				case l.IsMeta:
					local = local || strings.HasPrefix(text, "<local-command-caveat>")
				case !isText:
				case strings.HasPrefix(text, "<local-command-"):
				case local && strings.Contains(text, "<command-name>"):
					local = false
				default:
					local = false
					turns++
					if first == "" {
						first = promptText(text)
					}
				}
			}
		}
		if err == io.EOF {
			return first, turns, cwd, nil
		}
		if err != nil {
			return first, turns, cwd, err
		}
	}
}

// readLine returns the next line, or nil for a line over maxScanLine
// (which is read to its end and dropped).
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) > maxScanLine {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// contentText is a user message's text: the string, or the text blocks
// joined; isText is false for tool results.
func contentText(raw json.RawMessage) (text string, isText bool) {
	if len(raw) > 0 && raw[0] == '"' {
		if json.Unmarshal(raw, &text) != nil {
			return "", false
		}
		return text, true
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return "", false
	}
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "tool_result":
			return "", false
		}
	}
	return strings.Join(parts, "\n"), len(parts) > 0
}

// promptText shows a command the way it was typed: Claude Code records
// "/hello Bob" as <command-name>/hello</command-name> and
// <command-args>Bob</command-args>.
func promptText(text string) string {
	name, ok := between(text, "<command-name>", "</command-name>")
	if !ok {
		return strings.TrimSpace(text)
	}
	if args, _ := between(text, "<command-args>", "</command-args>"); strings.TrimSpace(args) != "" {
		return name + " " + strings.TrimSpace(args)
	}
	return name
}

func between(s, open, close string) (string, bool) {
	_, rest, ok := strings.Cut(s, open)
	if !ok {
		return "", false
	}
	in, _, ok := strings.Cut(rest, close)
	return in, ok
}

// ResumeCommand is the shell command that continues session id at the
// desk: cd to its directory (quoted for POSIX shells) and resume it.
func ResumeCommand(dir, id string) string {
	return "cd " + shellQuote(dir) + " && claude --resume " + shellQuote(id)
}

// shellQuote leaves plain words alone and puts anything else in single
// quotes (a ' inside as '\”).
func shellQuote(s string) string {
	plain := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._-+,:@%=", c)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
