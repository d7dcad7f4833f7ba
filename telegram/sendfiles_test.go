package telegram_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/filesend"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// fakeFiles is the send_file server as the bot sees it: real grants (MCP
// configs on disk), but no socket (it cannot live in a synctest bubble).
// A script plays Claude calling the tool with call, which does what the
// real server does: the path rule and the read, then the bot's delivery.
type fakeFiles struct {
	*filesend.Server
	mu       sync.Mutex
	sessions []filesend.Session
	grants   []*filesend.Grant
	restored map[string]filesend.Session // by grant key (held sessions, held_files_test.go)
	deliver  filesend.Deliver
	ready    chan struct{}
}

func newFakeFiles(t *testing.T) *fakeFiles {
	t.Helper()
	srv, err := filesend.Listen(filesend.Options{Dir: filepath.Join(t.TempDir(), "mcp"), Binary: "/bin/untether"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return &fakeFiles{Server: srv, ready: make(chan struct{}), restored: map[string]filesend.Session{}}
}

func (f *fakeFiles) Restore(s filesend.Session, key string) (*filesend.Grant, error) {
	g, err := f.Server.Restore(s, key)
	if err == nil {
		f.mu.Lock()
		f.restored[key] = s
		f.mu.Unlock()
	}
	return g, err
}

func (f *fakeFiles) Open(s filesend.Session) (*filesend.Grant, error) {
	g, err := f.Server.Open(s)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sessions = append(f.sessions, s)
	f.grants = append(f.grants, g)
	return g, err
}

func (f *fakeFiles) Serve(ctx context.Context, d filesend.Deliver) error {
	f.mu.Lock()
	f.deliver = d
	select {
	case <-f.ready: // a bot started again on the same server
	default:
		close(f.ready)
	}
	f.mu.Unlock()
	<-ctx.Done()
	return nil
}

// call sends paths (with their captions) of the latest session as one
// batch, and returns the tool results Claude would get.
func (f *fakeFiles) call(paths map[string]string, order ...string) []string {
	<-f.ready
	f.mu.Lock()
	sess := f.sessions[len(f.sessions)-1]
	f.mu.Unlock()
	return f.callAs(sess, paths, order...)
}

// callAs is call for the session sess (one restored, say).
func (f *fakeFiles) callAs(sess filesend.Session, paths map[string]string, order ...string) []string {
	<-f.ready
	f.mu.Lock()
	deliver := f.deliver
	f.mu.Unlock()
	out := make([]string, len(order))
	var files []filesend.File
	var at []int
	for i, p := range order {
		file, err := filesend.Read(context.Background(), sess.Rule, p, 50<<20)
		if err != nil {
			out[i] = "Not sent: " + err.Error()
			continue
		}
		file.Caption = paths[p]
		files = append(files, file)
		at = append(at, i)
	}
	if len(files) > 0 {
		for j, err := range deliver(context.Background(), sess.Key, files) {
			out[at[j]] = "Delivered"
			if err != nil {
				out[at[j]] = "Not sent: " + err.Error()
			}
		}
	}
	return out
}

// project makes a working directory holding files.
func project(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func withFiles(f *fakeFiles, work string) harnessOpt {
	return func(c *telegram.Config) { c.Files, c.WorkDir = f, work }
}

// TestSendFilePhotoAndDocument: an image Claude sends arrives as a photo
// and a PDF as a document, with the bytes of the files, answering the
// prompt; the caption is escaped; Claude reads that they were delivered.
// The process was started with the grant's MCP config.
func TestSendFilePhotoAndDocument(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		chart, pdf := tgtest.PNG(64, 48), []byte("%PDF-1.4 the report")
		work := project(t, map[string][]byte{"chart.png": chart, "out/report.pdf": pdf})
		files := newFakeFiles(t)
		var results []string
		h := newHarness(t, func(tu *enginetest.Turn) {
			tu.Start("m")
			results = append(results, files.call(map[string]string{"chart.png": "Revenue <by month>"}, "chart.png")...)
			results = append(results, files.call(map[string]string{"out/report.pdf": ""}, "out/report.pdf")...)
			tu.Complete("Sent both.")
		}, withFiles(files, work))
		q := h.say("show me the chart and the report")
		h.awaitText(h.dm.ID, "Sent both.")
		photos, docs := h.tg.Photos(h.dm.ID), h.tg.Documents(h.dm.ID)
		if len(photos) != 1 || len(docs) != 1 {
			t.Fatalf("messages: %q", h.messages(h.dm.ID))
		}
		photo, doc := photos[0], docs[0]
		if d, _ := h.tg.FileData(photo.FileID()); !bytes.Equal(d, chart) || photo.ReplyTo != q || photo.Text != "Revenue <by month>" {
			t.Errorf("photo %+v", photo)
		}
		if d, _ := h.tg.FileData(doc.FileID()); !bytes.Equal(d, pdf) || doc.Document.FileName != "report.pdf" || doc.ReplyTo != q {
			t.Errorf("document %+v", doc)
		}
		if strings.Join(results, "|") != "Delivered|Delivered" {
			t.Errorf("tool results %q", results)
		}
		spec := h.eng.starts()[0]
		if spec.MCPConfig == "" || spec.MCPConfig != files.grants[0].ConfigPath() {
			t.Errorf("started with MCP config %q, grant %q", spec.MCPConfig, files.grants[0].ConfigPath())
		}
	})
}

// Files sent together go as albums: the photos in one, the documents in
// another (Telegram groups documents only with documents).
func TestSendFileAlbums(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		work := project(t, map[string][]byte{"a.png": tgtest.PNG(10, 10), "b.jpg.png": tgtest.PNG(20, 10),
			"x.csv": []byte("1,2"), "y.txt": []byte("y")})
		files := newFakeFiles(t)
		h := newHarness(t, func(tu *enginetest.Turn) {
			tu.Start("m")
			files.call(map[string]string{"a.png": "first", "x.csv": "data"}, "a.png", "x.csv", "b.jpg.png", "y.txt")
			tu.Complete("Sent.")
		}, withFiles(files, work))
		h.say("send everything")
		h.awaitText(h.dm.ID, "Sent.")
		if n := len(h.tg.CallsTo("sendMediaGroup")); n != 2 {
			t.Errorf("%d albums sent, want 2", n)
		}
		albums := map[string][]string{}
		for _, m := range h.tg.Messages(h.dm.ID) {
			if m.Album != "" {
				kind := "photo"
				if m.Document != nil {
					kind = "document"
				}
				albums[m.Album] = append(albums[m.Album], kind+":"+m.Text)
			}
		}
		var got []string
		for _, items := range albums {
			got = append(got, strings.Join(items, ","))
		}
		if len(got) != 2 || !strings.Contains(strings.Join(got, " "), "photo:first,photo:") ||
			!strings.Contains(strings.Join(got, " "), "document:data,document:") {
			t.Errorf("albums %q", got)
		}
	})
}

// The grant's rule is the session's: the working directory, the chat's
// upload folder and add_dirs are inside; the state file, other chats'
// uploads and the rest of the disk are not, and nothing is sent for them.
func TestSendFileScope(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		work := project(t, map[string][]byte{"ok.txt": []byte("ok")})
		docs := project(t, map[string][]byte{"guide.md": []byte("guide")})
		state := filepath.Join(work, "state.db")
		if err := os.WriteFile(state, []byte("db"), 0o600); err != nil {
			t.Fatal(err)
		}
		files := newFakeFiles(t)
		var results []string
		h := newHarness(t, func(tu *enginetest.Turn) {
			tu.Start("m")
			results = files.call(nil, "ok.txt", filepath.Join(docs, "guide.md"), state, "/etc/hostname",
				filepath.Join(work, "..", "other.txt"))
			tu.Complete("done")
		}, withFiles(files, work), func(c *telegram.Config) {
			c.AddDirs, c.PrivatePaths = []string{docs}, []string{state}
		})
		h.say("send files")
		h.awaitText(h.dm.ID, "done")
		if results[0] != "Delivered" || results[1] != "Delivered" {
			t.Errorf("inside: %q", results[:2])
		}
		for i, want := range []string{"one of the bot's private files", "/etc/hostname is outside this session's project", "is outside"} {
			if r := results[2+i]; !strings.Contains(r, want) {
				t.Errorf("result %q, want %q", r, want)
			}
		}
		var sent []string
		for _, m := range h.tg.Documents(h.dm.ID) {
			sent = append(sent, m.Document.FileName)
		}
		if strings.Join(sent, ",") != "ok.txt,guide.md" {
			t.Errorf("sent %q, want the 2 inside", sent)
		}
		sess := files.sessions[0]
		if sess.Rule.WorkDir != work || sess.Key != telegram.SessionKey(h.dm.ID, 0) {
			t.Errorf("session %+v", sess)
		}
		own := filepath.Join(h.uploads, telegram.SessionKey(h.dm.ID, 0), "photo.jpg")
		other := filepath.Join(h.uploads, "999", "photo.jpg")
		if !sess.Rule.Check(own).Inside || sess.Rule.Check(other).Inside {
			t.Errorf("upload folders: own %+v, other %+v", sess.Rule.Check(own), sess.Rule.Check(other))
		}
	})
}

// A caption passes the redactor; an image Telegram will not take as a
// photo goes as a document; a 429 is waited out.
func TestSendFileRedactsRetriesAndFallsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const secret = "sk-live-0123456789abcdef"
		work := project(t, map[string][]byte{"tall.png": tgtest.PNGHeader(10, 900), "a.txt": []byte("a")})
		files := newFakeFiles(t)
		var results []string
		h := newHarness(t, func(tu *enginetest.Turn) {
			tu.Start("m")
			results = files.call(map[string]string{"tall.png": "key " + secret}, "tall.png")
			results = append(results, files.call(nil, "a.txt")...)
			tu.Complete("ok")
		}, withFiles(files, work), func(c *telegram.Config) { c.Secrets = []string{secret} })
		h.tg.FailNext("sendDocument", 1, tgtest.TooManyRequests(3))
		h.say("send")
		h.awaitText(h.dm.ID, "ok")
		if strings.Join(results, "|") != "Delivered|Delivered" {
			t.Errorf("results %q", results)
		}
		docs := h.tg.Documents(h.dm.ID)
		if len(docs) != 2 || docs[0].Document.FileName != "tall.png" || docs[0].Text != "key [redacted]" {
			t.Errorf("documents %+v", docs)
		}
		if calls := h.tg.CallsTo("sendPhoto"); len(calls) != 1 || !strings.Contains(calls[0].Description(), "PHOTO_INVALID_DIMENSIONS") {
			t.Errorf("sendPhoto calls %+v", calls)
		}
		h.assertNoLeak(secret)
	})
}

// A grant lives as long as its process: /new closes the process and
// removes its MCP config.
func TestSendFileGrantEndsWithProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		files := newFakeFiles(t)
		h := newHarness(t, echoScript, withFiles(files, t.TempDir()))
		h.say("hi")
		h.awaitText(h.dm.ID, "Answer:")
		path := files.grants[0].ConfigPath()
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("config of the live process: %v", err)
		}
		h.say("/new")
		h.awaitText(h.dm.ID, "Fresh start")
		synctest.Wait()
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the closed process's config is still there: %v", err)
		}
	})
}

// /get sends a file of the chat's project; a folder gets a hint naming
// its files; a path outside is refused; no path gets the usage.
func TestGetCommand(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		chart := tgtest.PNG(30, 20)
		work := project(t, map[string][]byte{"chart.png": chart, "docs/a.md": []byte("a"), "docs/b.md": []byte("b")})
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = work })
		q := h.say("/get chart.png")
		m := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return m.Photo != nil })
		if d, _ := h.tg.FileData(m.FileID()); !bytes.Equal(d, chart) || m.ReplyTo != q {
			t.Errorf("photo %+v", m)
		}
		h.say("/get docs")
		hint := h.awaitText(h.dm.ID, "is a folder")
		if !strings.Contains(hint.Text, "a.md") || !strings.Contains(hint.Text, "/get "+filepath.Join(work, "docs", "a.md")) {
			t.Errorf("folder hint %q", hint.Text)
		}
		h.say("/get /etc/hostname")
		h.awaitText(h.dm.ID, "Not sent: /etc/hostname is outside")
		h.say("/get")
		h.awaitText(h.dm.ID, "Usage: /get <path>")
		if n := len(h.tg.CallsTo("sendPhoto")) + len(h.tg.CallsTo("sendDocument")); n != 1 {
			t.Errorf("%d files sent, want 1", n)
		}
	})
}

// A file may bear the name of one of sendMediaGroup's own fields ("media",
// "chat_id"): the album still goes, each file under its own name or, where
// that name is the request's, a changed one.
func TestSendFileAlbumNamesLikeFields(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		work := project(t, map[string][]byte{"media": []byte("m"), "chat_id": []byte("c")})
		files := newFakeFiles(t)
		var results []string
		h := newHarness(t, func(tu *enginetest.Turn) {
			tu.Start("m")
			results = files.call(map[string]string{}, "media", "chat_id")
			tu.Complete("Sent.")
		}, withFiles(files, work))
		h.say("send both")
		h.awaitText(h.dm.ID, "Sent.")
		if strings.Join(results, "|") != "Delivered|Delivered" {
			t.Errorf("tool results %q", results)
		}
		docs := h.tg.Documents(h.dm.ID)
		if len(docs) != 2 || docs[0].Album == "" {
			t.Fatalf("documents %+v", docs)
		}
		for i, want := range []string{"m", "c"} {
			if d, _ := h.tg.FileData(docs[i].FileID()); string(d) != want {
				t.Errorf("document %d (%s) holds %q, want %q", i, docs[i].Document.FileName, d, want)
			}
		}
	})
}
