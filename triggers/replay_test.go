package triggers

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/untether/untether/prefs"
)

// The replay tests wire the server to the state file as the bot does
// (telegram's scheduler.trigger, reduced to the store): the delivery is
// remembered in the transaction that queues its run.

// stateFire queues runs in the store *st points at, at most max per chat.
type stateFire struct {
	mu  sync.Mutex
	st  *prefs.Store
	max int
}

func (f *stateFire) fire(_ context.Context, h Hook, d Delivery) error {
	f.mu.Lock()
	st := f.st
	f.mu.Unlock()
	p := prefs.Prompt{ChatID: h.ChatID, Text: string(d.Body), Date: d.At, Origin: &prefs.Origin{Kind: prefs.OriginTrigger, Label: h.Name}}
	_, got, err := st.EnqueueDelivery("42", p, f.max, prefs.Delivery{ID: d.ID, At: d.At, Until: d.At.Add(ReplayWindow)})
	switch {
	case err != nil:
		return err
	case got == prefs.SeenBefore:
		return ErrDuplicate
	case got == prefs.QueueFull:
		return ErrBusy
	}
	return nil
}

func (f *stateFire) reopen(t *testing.T, path string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.st != nil {
		if err := f.st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	st, err := prefs.Open(context.Background(), path, prefs.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	f.st = st
	t.Cleanup(func() { _ = st.Close() })
}

func (f *stateFire) queued(t *testing.T) []string {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	all, err := f.st.AllPendingPrompts()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, qp := range all {
		out = append(out, qp.Origin.Label+":"+qp.Text)
	}
	return out
}

// send posts body signed with key (and a GitHub delivery id when given),
// and returns the status and the answer's body.
func send(t *testing.T, url string, key, body []byte, delivery string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Hub-Signature-256", Sign(key, body))
	if delivery != "" {
		req.Header.Set("X-GitHub-Delivery", delivery)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// The replay: the same signed request sent 4 times starts one run;
// a restart (the state file reopened) still refuses it; a day later it
// runs again.
func TestReplayRunsOnce(t *testing.T) {
	ciKey, deployKey := []byte("ci-secret-for-tests"), []byte("deploy-secret-for-tests")
	path := filepath.Join(t.TempDir(), "untether.db")
	f := &stateFire{max: 100}
	f.reopen(t, path)
	clock := &manualClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	base := serve(t, Config{Now: clock.Now, Burst: 100, Hooks: []Hook{
		{Name: "ci", ChatID: 42, Secret: ciKey}, {Name: "deploy", ChatID: 42, Secret: deployKey}}}, f.fire)
	body := []byte(`{"build": 17, "status": "failed"}`)

	var codes []int
	for range 4 {
		code, answer := send(t, base+"/hooks/ci", ciKey, body, "")
		codes = append(codes, code)
		if code == http.StatusOK && answer != "duplicate" {
			t.Errorf("a repeat answered %q, want duplicate", answer)
		}
	}
	if want := []int{202, 200, 200, 200}; !slices.Equal(codes, want) {
		t.Errorf("statuses %v, want %v", codes, want)
	}
	// A new X-GitHub-Delivery does not make a replay new: the header is not
	// signed, the body is.
	if code, answer := send(t, base+"/hooks/ci", ciKey, body, "a-fresh-guid"); code != http.StatusOK || answer != "duplicate" {
		t.Errorf("replay with a new delivery header: %d %q, want 200 duplicate", code, answer)
	}
	// The same body to another trigger is another delivery.
	if code, _ := send(t, base+"/hooks/deploy", deployKey, body, ""); code != http.StatusAccepted {
		t.Errorf("same body to another trigger: %d, want 202", code)
	}
	if got := f.queued(t); len(got) != 2 {
		t.Fatalf("queued %q, want one run per trigger", got)
	}

	f.reopen(t, path) // the bot restarts on the same state file
	clock.add(23 * time.Hour)
	if code, answer := send(t, base+"/hooks/ci", ciKey, body, ""); code != http.StatusOK || answer != "duplicate" {
		t.Errorf("after a restart: %d %q, want 200 duplicate", code, answer)
	}
	clock.add(time.Hour)
	if code, _ := send(t, base+"/hooks/ci", ciKey, body, ""); code != http.StatusAccepted {
		t.Errorf("24 h later: %d, want 202", code)
	}
	if got := f.queued(t); len(got) != 3 {
		t.Errorf("queued %q, want 3 runs", got)
	}
}

// A delivery whose run could not be queued (503) is not remembered: the
// sender's retry runs once there is room.
func TestReplayAfterBusyRuns(t *testing.T) {
	key := []byte("ci-secret-for-tests")
	f := &stateFire{max: 1}
	f.reopen(t, filepath.Join(t.TempDir(), "untether.db"))
	base := serve(t, Config{Burst: 100, Hooks: []Hook{{Name: "ci", ChatID: 42, Secret: key}}}, f.fire)
	if code, _ := send(t, base+"/hooks/ci", key, []byte("first"), ""); code != http.StatusAccepted {
		t.Fatalf("first: %d", code)
	}
	if code, _ := send(t, base+"/hooks/ci", key, []byte("second"), ""); code != http.StatusServiceUnavailable {
		t.Fatalf("second, queue full: %d, want 503", code)
	}
	all, err := f.st.AllPendingPrompts()
	if err != nil || len(all) != 1 {
		t.Fatalf("queued %v %v", all, err)
	}
	if err := f.st.DonePrompt(all[0].Key, all[0].Seq); err != nil {
		t.Fatal(err)
	}
	if code, answer := send(t, base+"/hooks/ci", key, []byte("second"), ""); code != http.StatusAccepted {
		t.Fatalf("second again: %d %q, want 202", code, answer)
	}
}
