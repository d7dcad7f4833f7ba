package hold

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// A client's q and the CLI's exit may come in either order, and wait
// signals the exit last, closing done after the exit record's broadcast:
// the holder ends once both have come, not an orphan time later. The bot
// sends q as soon as it reads the exit record, which on a loaded machine
// is before wait has closed done: the holder and its folder stayed the
// whole orphan time (durable_wait) after the session had ended.
func TestServeEndsWhenTheExitIsSignalledAfterQuit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "h")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		j, err := openJournal(dir, DefaultMaxJournal)
		if err != nil {
			t.Fatal(err)
		}
		h := &holder{cfg: Config{Dir: dir, Orphan: time.Hour}, log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			ln: &idleListener{closed: make(chan struct{})}, stdin: nopCloser{}, j: j,
			changed: make(chan struct{}), done: make(chan struct{}), term: make(chan os.Signal, 1), detached: time.Now()}
		served := make(chan struct{})
		go func() { h.serve(); close(served) }()
		synctest.Wait()

		// The exit record is out, the bot read it and said q; it has left.
		h.mu.Lock()
		h.exit = &Exit{}
		h.quit = true
		h.broadcast()
		h.mu.Unlock()
		synctest.Wait() // serve has looked, and the CLI is not reaped yet
		close(h.done)   // as wait does, after its last broadcast
		synctest.Wait()

		select {
		case <-served:
		default:
			t.Error("the holder still serves after the CLI exited and the client said q")
		}
		<-served // (the orphan time, on the bubble's clock)
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the holder's folder is still there: %v", err)
		}
	})
}

// idleListener is a listener no client dials.
type idleListener struct {
	closed chan struct{}
	once   sync.Once
}

func (l *idleListener) Accept() (net.Conn, error) {
	<-l.closed
	return nil, net.ErrClosed
}

func (l *idleListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *idleListener) Addr() net.Addr { return &net.UnixAddr{Name: "idle", Net: "unix"} }

type nopCloser struct{}

func (nopCloser) Write(p []byte) (int, error) { return len(p), nil }
func (nopCloser) Close() error                { return nil }
