package telegram_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// promptScript answers every prompt and hands it to the test.
func promptScript(prompts chan<- string) enginetest.Script {
	return func(t *enginetest.Turn) {
		prompts <- t.Prompt
		t.Start("fake-model")
		t.Complete("Seen.")
	}
}

var savedPath = regexp.MustCompile(`(?m)^- (/\S+) \(`)

// savedFiles returns the paths the prompt says the files were saved at.
func savedFiles(t *testing.T, prompt string) []string {
	t.Helper()
	var out []string
	for _, m := range savedPath.FindAllStringSubmatch(prompt, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestPhotoReachesClaudeAsAFile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		prompts := make(chan string, 4)
		h := newHarness(t, promptScript(prompts))
		png := bytes.Repeat([]byte("\x89PNG-pixels"), 500)
		h.tg.SendPhoto(h.user, h.dm, png, "Why does the build fail?")
		prompt := <-prompts
		if !strings.HasPrefix(prompt, "Why does the build fail?\n\n[The user attached a file in Telegram") {
			t.Errorf("prompt = %q", prompt)
		}
		paths := savedFiles(t, prompt)
		if len(paths) != 1 || !strings.HasPrefix(paths[0], h.uploads+string(filepath.Separator)) ||
			!strings.HasSuffix(paths[0], "-photo.jpg") {
			t.Fatalf("saved at %v (uploads %s)", paths, h.uploads)
		}
		if !strings.Contains(prompt, "(photo, 1280×853, 5 KB)") {
			t.Errorf("prompt does not describe the photo: %q", prompt)
		}
		got, err := os.ReadFile(paths[0])
		if err != nil || !bytes.Equal(got, png) {
			t.Fatalf("saved file: %d bytes, %v; want the largest size's %d bytes", len(got), err, len(png))
		}
		h.awaitText(h.dm.ID, "Seen.")
	})
}

func TestDocumentWithoutCaption(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		prompts := make(chan string, 4)
		h := newHarness(t, promptScript(prompts))
		h.tg.SendDocument(h.user, h.dm, "../../etc/pass wd;rm.log", "text/plain", []byte("panic: boom\n"), "")
		prompt := <-prompts
		if !strings.HasPrefix(prompt, "(The user sent only this, without a message.)") {
			t.Errorf("prompt = %q", prompt)
		}
		paths := savedFiles(t, prompt)
		if len(paths) != 1 || filepath.Dir(paths[0]) != filepath.Join(h.uploads, "4242") {
			t.Fatalf("saved at %v: a file name must not choose the folder", paths)
		}
		if base := filepath.Base(paths[0]); !regexp.MustCompile(`^\d+-pass_wd_rm\.log$`).MatchString(base) {
			t.Errorf("file name %q is not sanitised", base)
		}
		if got, _ := os.ReadFile(paths[0]); string(got) != "panic: boom\n" {
			t.Errorf("saved %q", got)
		}
	})
}

// inGroup starts a bot whose Claude hands over its prompts, and a group.
// noOtherPrompt fails if a prompt runs before the album's quiet time
// (AlbumWait) is well past, on the bubble's clock.
func noOtherPrompt(t *testing.T, prompts <-chan string, what string) {
	t.Helper()
	time.Sleep(300 * time.Millisecond)
	synctest.Wait()
	select {
	case p := <-prompts:
		t.Errorf("%s: %q", what, p)
	default:
	}
}

func inGroup(t *testing.T) (*harness, tgtest.Chat, chan string) {
	prompts := make(chan string, 4)
	h := newHarness(t, promptScript(prompts))
	g := tgtest.Supergroup(-100777, "team")
	h.tg.AddChat(g)
	return h, g, prompts
}

func TestFileInGroupNeedsAddressing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, g, prompts := inGroup(t)
		h.tg.SendDocument(h.user, g, "notes.txt", "text/plain", []byte("not for the bot"), "lunch menu")
		h.tg.SendDocument(h.user, g, "trace.txt", "text/plain", []byte("stack"), "@"+h.tg.Bot().Username+" explain this")
		prompt := <-prompts
		if !strings.HasPrefix(prompt, "explain this\n\n") || !strings.Contains(prompt, "trace.txt") {
			t.Errorf("prompt = %q", prompt)
		}
		h.awaitText(g.ID, "Seen.")
		if n := len(h.eng.starts()); n != 1 {
			t.Errorf("%d sessions started; the unaddressed file must be ignored", n)
		}
	})
}

func TestFileTooBigIsRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		h.tg.SendDocument(h.user, h.dm, "disk.img", "application/octet-stream", []byte("x"), "look", tgtest.FileSize(tgtest.MaxDownload+1))
		h.awaitText(h.dm.ID, "That file is 20.0 MB, and Telegram lets bots download files of up to 20 MB")
		if n := len(h.eng.starts()); n != 0 {
			t.Errorf("claude started %d times for a file it cannot get", n)
		}
	})
}

func TestFileDownloadFailureIsReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		h.tg.FailWhen(func(c tgtest.Call) bool { return c.Method == "getFile" },
			tgtest.Failure{Code: 400, Description: "Bad Request: wrong file_id or the file is temporarily unavailable"})
		h.tg.SendPhoto(h.user, h.dm, []byte("img"), "what is this?")
		m := h.awaitText(h.dm.ID, "Could not download your file")
		if !strings.Contains(m.Text, "temporarily unavailable") || strings.Contains(m.Text, h.tg.Token()) {
			t.Errorf("error message %q", m.Text)
		}
		if n := len(h.eng.starts()); n != 0 {
			t.Errorf("claude started %d times without the file", n)
		}
	})
}

func TestAlbumRunsAsOnePrompt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		prompts := make(chan string, 4)
		h := newHarness(t, promptScript(prompts))
		h.tg.SendPhoto(h.user, h.dm, []byte("first"), "Compare these screens.", tgtest.InAlbum("alb1"))
		h.tg.SendPhoto(h.user, h.dm, []byte("second"), "", tgtest.InAlbum("alb1"))
		h.tg.SendDocument(h.user, h.dm, "third.png", "image/png", []byte("third"), "", tgtest.InAlbum("alb1"))
		prompt := <-prompts
		if !strings.HasPrefix(prompt, "Compare these screens.\n\n[The user attached 3 files") {
			t.Errorf("prompt = %q", prompt)
		}
		paths := savedFiles(t, prompt)
		if len(paths) != 3 {
			t.Fatalf("saved %v, want the 3 items of the album", paths)
		}
		for i, want := range []string{"first", "second", "third"} {
			if got, _ := os.ReadFile(paths[i]); string(got) != want {
				t.Errorf("file %d holds %q, want %q", i, got, want)
			}
		}
		h.awaitText(h.dm.ID, "Seen.")
		noOtherPrompt(t, prompts, "a second prompt ran")
		// Every item's stored prompt is done: a restart would not run them again.
		if q, err := h.pending(strconv.FormatInt(h.dm.ID, 10)); err != nil || len(q) != 0 {
			t.Errorf("pending after the album ran: %+v, %v", q, err)
		}
		// A photo outside the album is a prompt of its own.
		h.tg.SendPhoto(h.user, h.dm, []byte("alone"), "And this one?")
		if p := <-prompts; !strings.HasPrefix(p, "And this one?") || len(savedFiles(t, p)) != 1 {
			t.Errorf("next prompt = %q", p)
		}
	})
}

func TestAlbumInGroupFollowsItsCaption(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, g, prompts := inGroup(t)
		h.tg.SendPhoto(h.user, g, []byte("a"), "@"+h.tg.Bot().Username+" what changed?", tgtest.InAlbum("g1"))
		h.tg.SendPhoto(h.user, g, []byte("b"), "", tgtest.InAlbum("g1"))
		h.tg.SendPhoto(h.user, g, []byte("not for the bot"), "", tgtest.InAlbum("g2"))
		prompt := <-prompts
		if !strings.HasPrefix(prompt, "what changed?\n\n[The user attached 2 files") || len(savedFiles(t, prompt)) != 2 {
			t.Errorf("prompt = %q", prompt)
		}
		h.awaitText(g.ID, "Seen.")
		noOtherPrompt(t, prompts, "an album not addressed to the bot ran")
	})
}

func TestOldUploadsAreRemoved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		h.say("hello")
		h.awaitText(h.dm.ID, "Answer: hello") // running, so it stops cleanly
		h.stop()
		old := time.Now().Add(-2 * time.Hour)
		write := func(rel string, mtime time.Time) string {
			p := filepath.Join(h.uploads, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(rel), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, mtime, mtime); err != nil {
				t.Fatal(err)
			}
			return p
		}
		stale := write("4242/1-photo.jpg", old)
		fresh := write("4242/2-photo.jpg", time.Now())
		gone := write("-100777/3-trace.txt", old)
		// A link to a file elsewhere is neither followed nor removed.
		outside := filepath.Join(t.TempDir(), "precious.txt")
		if err := os.WriteFile(outside, []byte("keep"), 0o600); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(h.uploads, "4242", "link")
		if err := os.Symlink(outside, link); err != nil {
			t.Fatal(err)
		}
		_ = os.Chtimes(outside, old, old)

		h.start(func(c *telegram.Config) { c.UploadKeep = time.Hour })
		synctest.Wait() // the bot is up and idle: the sweep at start has run
		if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("old file kept: %v", err)
		}
		if _, err := os.Stat(gone); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("old file in another chat's folder kept: %v", err)
		}
		if _, err := os.Stat(filepath.Dir(gone)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("emptied chat folder kept: %v", err)
		}
		for _, p := range []string{fresh, outside, link} {
			if _, err := os.Lstat(p); err != nil {
				t.Errorf("%s removed: %v", p, err)
			}
		}
	})
}

// TestFileFromALocalBotAPIServer: a self-hosted Bot API server in --local
// mode gives an absolute path instead of a download URL.
func TestFileFromALocalBotAPIServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		prompts := make(chan string, 4)
		serverDir := t.TempDir()
		h := newHarnessPre(t, promptScript(prompts), func(s *tgtest.Server) { s.LocalMode(serverDir) })
		h.tg.SendDocument(h.user, h.dm, "big.log", "text/plain", []byte("from the local server"), "read this")
		paths := savedFiles(t, <-prompts)
		if len(paths) != 1 {
			t.Fatalf("saved %v", paths)
		}
		if got, _ := os.ReadFile(paths[0]); string(got) != "from the local server" {
			t.Errorf("saved %q", got)
		}
		if !strings.HasPrefix(paths[0], h.uploads) {
			t.Errorf("saved at %s, want a copy in the uploads folder", paths[0])
		}
		for _, c := range h.tg.Calls() {
			if c.Method == "download" {
				t.Errorf("downloaded %s over HTTP in local mode", c.Params["file_path"])
			}
		}
	})
}
