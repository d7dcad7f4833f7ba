package prefs

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPrefsRoundTrip(t *testing.T) {
	s := openTest(t)
	const key = "-100123:7"

	p, err := s.Prefs(key)
	if err != nil || !p.isZero() {
		t.Fatalf("fresh prefs = %+v, %v; want all unset", p, err)
	}
	must(t, s.SetPlanMode(key, PlanAuto))
	must(t, s.SetModel(key, "claude-opus-4"))
	must(t, s.SetVerbose(key, ptr(false)))
	must(t, s.SetStream(key, "edits"))
	p, err = s.Prefs(key)
	must(t, err)
	want := Prefs{PlanMode: PlanAuto, Model: "claude-opus-4", Verbose: ptr(false), Stream: "edits"}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("prefs = %+v, want %+v", p, want)
	}
	if other, _ := s.Prefs("-100123"); !other.isZero() {
		t.Errorf("prefs leaked to another key: %+v", other)
	}

	must(t, s.SetModel(key, ""))
	must(t, s.SetVerbose(key, nil))
	must(t, s.SetStream(key, ""))
	p, err = s.Prefs(key)
	must(t, err)
	if !reflect.DeepEqual(p, Prefs{PlanMode: PlanAuto}) {
		t.Fatalf("after clearing model, verbose and stream: %+v", p)
	}
	must(t, s.SetPlanMode(key, PlanUnset))
	if keys, _ := s.KnownChats(); slices.Contains(keys, key) {
		t.Errorf("all-unset prefs still stored: known = %v", keys)
	}

	if err := s.SetPlanMode(key, "sometimes"); err == nil {
		t.Error("invalid plan mode accepted")
	}
	must(t, s.SetVerbose(key, ptr(true)))
	must(t, s.SetPlanMode(key, PlanOn))
	p, _ = s.Prefs(key)
	if p.Verbose == nil || !*p.Verbose || p.PlanMode != PlanOn {
		t.Errorf("prefs after setting verbose and plan mode = %+v", p)
	}
	if _, err := s.Prefs(""); err == nil {
		t.Error("empty key accepted")
	}
}

func TestSessionRecordAndResumeFailures(t *testing.T) {
	clock := newTestClock()
	s := openTest(t, withClock(clock.Now), withMaxResumeFailures(2))
	const key = "42"

	if _, ok, err := s.Session(key); ok || err != nil {
		t.Fatalf("fresh session: ok=%v err=%v", ok, err)
	}
	must(t, s.StartSession(key, "sess-a", "", ""))
	rec, ok, err := s.Session(key)
	must(t, err)
	if !ok || rec.SessionID != "sess-a" || !rec.Updated.Equal(clock.Now()) {
		t.Fatalf("record = %+v ok=%v", rec, ok)
	}

	// A stale id is ignored.
	if retry, err := s.MarkResumeFailed(key, "sess-old"); retry || err != nil {
		t.Fatalf("stale id: retry=%v err=%v", retry, err)
	}
	clock.Advance(time.Minute)
	if retry, err := s.MarkResumeFailed(key, "sess-a"); !retry || err != nil {
		t.Fatalf("first failure: retry=%v err=%v, want retry", retry, err)
	}
	rec, ok, _ = s.Session(key)
	if !ok || rec.ResumeFailures != 1 {
		t.Fatalf("after one failure: %+v ok=%v", rec, ok)
	}
	clock.Advance(time.Minute)
	if retry, err := s.MarkResumeFailed(key, "sess-a"); retry || err != nil {
		t.Fatalf("second failure: retry=%v err=%v, want no retry", retry, err)
	}
	rec, ok, _ = s.Session(key)
	if ok || rec.SessionID != "" || rec.DroppedID != "sess-a" || !rec.DroppedAt.Equal(clock.Now()) {
		t.Fatalf("after dropping: %+v ok=%v", rec, ok)
	}
	if retry, _ := s.MarkResumeFailed(key, "sess-a"); retry {
		t.Error("dropped id offered for retry again")
	}

	// A new id starts clean; the same id again keeps its count.
	must(t, s.StartSession(key, "sess-b", "", ""))
	_, _ = s.MarkResumeFailed(key, "sess-b")
	must(t, s.StartSession(key, "sess-b", "", ""))
	rec, _, _ = s.Session(key)
	if rec.ResumeFailures != 1 || rec.DroppedID != "sess-a" {
		t.Errorf("re-setting the same id: %+v", rec)
	}
	must(t, s.StartSession(key, "sess-c", "", ""))
	rec, _, _ = s.Session(key)
	if rec.ResumeFailures != 0 {
		t.Errorf("new id kept old failures: %+v", rec)
	}

	if err := s.StartSession(key, "", "", ""); err == nil {
		t.Error("empty session id accepted")
	}
	must(t, s.ClearSession(key))
	// The current id is forgotten, not archived; sess-b, replaced by
	// sess-c, stays in the history.
	if rec, ok, _ := s.Session(key); ok || rec.SessionID != "" || len(rec.History) != 1 || rec.History[0].ID != "sess-b" {
		t.Errorf("after ClearSession: %+v ok=%v", rec, ok)
	}
	// A key with nothing to keep leaves no record.
	must(t, s.StartSession("solo", "x", "", ""))
	must(t, s.ClearSession("solo"))
	if rec, ok, _ := s.Session("solo"); ok || rec.SessionID != "" || len(rec.History) != 0 || !rec.Updated.IsZero() {
		t.Errorf("solo after ClearSession: %+v", rec)
	}
}

func TestSessionHistory(t *testing.T) {
	s := openTest(t)
	key := "-100:5"
	must(t, s.StartSession(key, "s1", "fix the login bug", "/code/api"))
	must(t, s.StartSession(key, "s1", "later prompt", "/elsewhere")) // same session: kept as it was
	must(t, s.StartSession(key, "s2", "write docs", "/code/web"))
	rec, ok, err := s.Session(key)
	must(t, err)
	if !ok || rec.SessionID != "s2" || rec.Title != "write docs" || rec.WorkDir != "/code/web" || rec.Started.IsZero() {
		t.Fatalf("current = %+v", rec)
	}
	if len(rec.History) != 1 || rec.History[0].ID != "s1" || rec.History[0].Title != "fix the login bug" ||
		rec.History[0].WorkDir != "/code/api" || rec.History[0].Ended.IsZero() {
		t.Fatalf("history = %+v", rec.History)
	}
	// /new archives; bringing s1 back makes it current and takes it out of
	// the history, where s2 now is.
	must(t, s.ArchiveSession(key))
	if rec, ok, _ := s.Session(key); ok || len(rec.History) != 2 || rec.History[0].ID != "s2" {
		t.Fatalf("after archive: %+v", rec)
	}
	must(t, s.StartSession(key, "s1", "fix the login bug", "/code/api"))
	rec, _, _ = s.Session(key)
	if rec.SessionID != "s1" || len(rec.History) != 1 || rec.History[0].ID != "s2" {
		t.Fatalf("after bringing s1 back: %+v", rec)
	}
	// The history is bounded, newest first.
	for i := range maxHistory + 5 {
		must(t, s.StartSession(key, fmt.Sprintf("n%d", i), "", ""))
	}
	rec, _, _ = s.Session(key)
	if len(rec.History) != maxHistory || rec.History[0].ID != fmt.Sprintf("n%d", maxHistory+3) {
		t.Errorf("bounded history: %d entries, newest %q", len(rec.History), rec.History[0].ID)
	}
}

func TestCostSurvivesClearSession(t *testing.T) {
	s := openTest(t)
	must(t, s.StartSession("7", "A", "", ""))
	_, err := s.RecordTurnCost("7", "A", 1.75, time.Now())
	must(t, err)
	if c, _ := s.Cost("7"); c != 1.75 {
		t.Errorf("Cost = %v", c)
	}
	if c, _ := s.Cost("8"); c != 0 {
		t.Errorf("Cost of unknown key = %v", c)
	}
	must(t, s.ClearSession("7"))
	if c, _ := s.Cost("7"); c != 1.75 {
		t.Errorf("ClearSession dropped the cost: %v", c)
	}
}

func TestKnownChats(t *testing.T) {
	s := openTest(t)
	must(t, s.SetModel("c", "m"))
	must(t, s.StartSession("a", "x", "", ""))
	_, err := s.RecordTurnCost("b", "z", 1, time.Now())
	must(t, err)
	must3(t)(s.AcceptUpdate(1, "d", &Prompt{Text: "q"}))
	must(t, s.StartSession("c", "y", "", ""))
	keys, err := s.KnownChats()
	must(t, err)
	if want := []string{"a", "b", "c", "d"}; !slices.Equal(keys, want) {
		t.Fatalf("KnownChats = %v, want %v", keys, want)
	}
}

func TestOffsetAndHandledWindow(t *testing.T) {
	s := openTest(t, withHandledWindow(5))
	if off, err := s.Offset(); off != 0 || err != nil {
		t.Fatalf("fresh offset = %d, %v", off, err)
	}
	must(t, s.SetOffset(1234567890123))
	if off, _ := s.Offset(); off != 1234567890123 {
		t.Fatalf("offset = %d", off)
	}

	for id := int64(1); id <= 12; id++ {
		_, fresh, err := s.AcceptUpdate(id, "", nil)
		if err != nil || !fresh {
			t.Fatalf("AcceptUpdate(%d) = %v, %v", id, fresh, err)
		}
	}
	for id := int64(1); id <= 12; id++ {
		got, err := s.Handled(id)
		must(t, err)
		if want := id > 7; got != want {
			t.Errorf("Handled(%d) = %v, want %v", id, got, want)
		}
	}
	if _, fresh, _ := s.AcceptUpdate(10, "", nil); fresh {
		t.Error("re-marking a handled id reported fresh")
	}
	assertWindowSize(t, s, 5)

	// Telegram may restart ids at a lower value: the window follows marking order.
	if _, _, err := s.AcceptUpdate(3, "", nil); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Handled(3); !ok {
		t.Error("low id after restart not remembered")
	}
	if ok, _ := s.Handled(8); ok {
		t.Error("oldest marked id not pruned")
	}
	if ok, _ := s.Handled(12); !ok {
		t.Error("recent id pruned")
	}
	assertWindowSize(t, s, 5)
}

func assertWindowSize(t *testing.T, s *Store, want int) {
	t.Helper()
	must(t, s.view(func(tx *txn) error {
		for _, name := range [][]byte{bucketHandled, bucketHandSeq} {
			if n := tx.tx.Bucket(name).Stats().KeyN; n != want {
				t.Errorf("bucket %s holds %d keys, want %d", name, n, want)
			}
		}
		return nil
	}))
}

func TestPromptQueue(t *testing.T) {
	s := openTest(t)
	date := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	mk := func(i int) Prompt {
		return Prompt{UpdateID: int64(100 + i), ChatID: -1009, ThreadID: i % 2, MessageID: 500 + i, UserID: 77, Text: fmt.Sprint("prompt ", i), Date: date}
	}
	keys := []string{"-1009:0", "-1009:1", "-1009:0", "55", "-1009:1"}
	var seqs []uint64
	for i, k := range keys {
		p := mk(i)
		seq, _, err := s.AcceptUpdate(p.UpdateID, k, &p)
		must(t, err)
		if len(seqs) > 0 && seq <= seqs[len(seqs)-1] {
			t.Fatalf("sequence not increasing: %d after %v", seq, seqs)
		}
		seqs = append(seqs, seq)
	}

	got := pendingOf(t, s, "-1009:0")
	want := []QueuedPrompt{{Key: "-1009:0", Seq: seqs[0], Prompt: mk(0)}, {Key: "-1009:0", Seq: seqs[2], Prompt: mk(2)}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("pending of -1009:0 = %+v\nwant %+v", got, want)
	}
	all, err := s.AllPendingPrompts()
	must(t, err)
	if len(all) != len(keys) {
		t.Fatalf("AllPendingPrompts has %d, want %d", len(all), len(keys))
	}
	for i, q := range all {
		if q.Seq != seqs[i] || q.Key != keys[i] || q.Text != mk(i).Text {
			t.Errorf("AllPendingPrompts[%d] = %+v, want seq %d key %s", i, q, seqs[i], keys[i])
		}
	}

	must(t, s.DonePrompt("-1009:0", seqs[0]))
	must(t, s.DonePrompt("-1009:0", seqs[0])) // twice is fine
	must(t, s.DonePrompt("55", seqs[1]))      // wrong key: nothing happens
	must(t, s.DonePrompt("nobody", 1))
	got = pendingOf(t, s, "-1009:0")
	if len(got) != 1 || got[0].Seq != seqs[2] {
		t.Fatalf("after DonePrompt: %+v", got)
	}
	must(t, s.DonePrompt("55", seqs[3]))
	// Several at once (a turn of merged album items), the queue going with them.
	must(t, s.DonePrompt("-1009:1", seqs[1], seqs[4]))
	if got := pendingOf(t, s, "-1009:1"); len(got) != 0 {
		t.Errorf("after DonePrompt of two: %+v", got)
	}
	if keys, _ := s.KnownChats(); slices.Contains(keys, "55") {
		t.Errorf("emptied queue still makes key known: %v", keys)
	}
	if got := pendingOf(t, s, "55"); len(got) != 0 {
		t.Errorf("pending of emptied queue = %+v", got)
	}
}

func TestLiveMessages(t *testing.T) {
	clock := newTestClock()
	s := openTest(t, withClock(clock.Now))
	early := clock.Now().Add(-time.Hour)
	must(t, s.AddLive(LiveMessage{Kind: LiveProgress, ChatID: -100, MessageID: 9, ThreadID: 3, SessionKey: "-100:3"}))
	must(t, s.AddLive(LiveMessage{Kind: LivePrompt, ChatID: 5, MessageID: 9, SessionKey: "5", Created: early}))
	must(t, s.AddLive(LiveMessage{Kind: LivePrompt, ChatID: 5, MessageID: 10, SessionKey: "5", Created: early.Add(time.Minute)}))
	if err := s.AddLive(LiveMessage{Kind: "banner", ChatID: 5, MessageID: 11}); err == nil {
		t.Error("unknown kind accepted")
	}

	got, err := s.ListLive()
	must(t, err)
	want := []LiveMessage{
		{Kind: LivePrompt, ChatID: 5, MessageID: 9, SessionKey: "5", Created: early},
		{Kind: LivePrompt, ChatID: 5, MessageID: 10, SessionKey: "5", Created: early.Add(time.Minute)},
		{Kind: LiveProgress, ChatID: -100, MessageID: 9, ThreadID: 3, SessionKey: "-100:3", Created: clock.Now()},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ListLive = %+v\nwant %+v", got, want)
	}
	must(t, s.RemoveLive(5, 9))
	must(t, s.RemoveLive(5, 9))
	must(t, s.RemoveLive(-100, 9))
	got, _ = s.ListLive()
	if len(got) != 1 || got[0].MessageID != 10 {
		t.Fatalf("after RemoveLive: %+v", got)
	}
}

// A turn is recorded against the user's message before Claude sees it; the
// record moves to the progress message once that exists, in one step.
func TestLiveTurnMovesToProgress(t *testing.T) {
	s := openTest(t)
	must(t, s.AddLive(LiveMessage{Kind: LiveTurn, ChatID: 5, MessageID: 40, SessionKey: "5"}))
	must(t, s.MoveLive(5, 40, LiveMessage{Kind: LiveProgress, ChatID: 5, MessageID: 41, SessionKey: "5"}))
	got, err := s.ListLive()
	must(t, err)
	if len(got) != 1 || got[0].Kind != LiveProgress || got[0].MessageID != 41 {
		t.Fatalf("ListLive = %+v, want only the progress message", got)
	}
	if err := s.MoveLive(5, 41, LiveMessage{Kind: "banner", ChatID: 5, MessageID: 42}); err == nil {
		t.Fatal("an unknown kind was accepted")
	}
	if got, _ := s.ListLive(); len(got) != 1 || got[0].MessageID != 41 {
		t.Fatalf("a refused move changed the records: %+v", got)
	}
}

func TestEverythingSurvivesReopen(t *testing.T) {
	clock := newTestClock()
	path := dbPath(t)
	s := openAt(t, path, withClock(clock.Now))
	must(t, s.SetModel("1", "sonnet"))
	must(t, s.StartSession("1", "sess", "", ""))
	if _, err := s.RecordTurnCost("1", "sess", 0.5, clock.Now()); err != nil {
		t.Fatal(err)
	}
	seq, _, err := s.AcceptUpdate(77, "1", &Prompt{ChatID: 1, Text: "do it"})
	must(t, err)
	must(t, s.AddLive(LiveMessage{Kind: LiveProgress, ChatID: 1, MessageID: 2, SessionKey: "1"}))
	must(t, s.Close())

	s = openAt(t, path, withClock(clock.Now))
	p, _ := s.Prefs("1")
	rec, ok, _ := s.Session("1")
	cost, _ := s.Cost("1")
	off, _ := s.Offset()
	handled, _ := s.Handled(77)
	pending, _ := s.AllPendingPrompts()
	live, _ := s.ListLive()
	if p.Model != "sonnet" || !ok || rec.SessionID != "sess" || cost != 0.5 || off != 78 || !handled ||
		len(pending) != 1 || pending[0].Seq != seq || pending[0].Text != "do it" || len(live) != 1 {
		t.Fatalf("after reopen: prefs %+v session %+v/%v cost %v offset %d handled %v pending %+v live %+v",
			p, rec, ok, cost, off, handled, pending, live)
	}
	// Sequences keep increasing across restarts.
	seq2, _, err := s.AcceptUpdate(78, "1", &Prompt{Text: "next"})
	must(t, err)
	if seq2 <= seq {
		t.Errorf("sequence after reopen %d <= %d", seq2, seq)
	}
}

// A turn that cannot begin in full leaves everything as it was: its prompts stay queued, to
// run after a restart, and no progress message is recorded.
func TestBeginTurnRollsBackOnError(t *testing.T) {
	s := openTest(t)
	seq, _, err := s.AcceptUpdate(1, "k", &Prompt{Text: "run me"})
	must(t, err)
	// The prompts are removed first; the invalid live message fails after that, in the same
	// transaction.
	err = s.BeginTurn("k", []uint64{seq}, &LiveMessage{Kind: "banner", ChatID: 1, MessageID: 2, SessionKey: "k"})
	if err == nil || !strings.Contains(err.Error(), s.path) {
		t.Fatalf("err = %v, want an error naming the file", err)
	}
	if q := pendingOf(t, s, "k"); len(q) != 1 || q[0].Seq != seq {
		t.Errorf("prompt removed despite rollback: %+v", q)
	}
	if live, _ := s.ListLive(); len(live) != 0 {
		t.Errorf("live message written despite rollback: %+v", live)
	}

	must(t, s.BeginTurn("k", []uint64{seq}, &LiveMessage{Kind: LiveProgress, ChatID: 1, MessageID: 2, SessionKey: "k"}))
	if q := pendingOf(t, s, "k"); len(q) != 0 {
		t.Errorf("prompt still queued after BeginTurn: %+v", q)
	}
	if live, _ := s.ListLive(); len(live) != 1 || live[0].MessageID != 2 {
		t.Errorf("live after BeginTurn: %+v", live)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// must3 checks the error of a three-value call: must3(t)(f()).
func must3(t *testing.T) func(uint64, bool, error) {
	return func(_ uint64, _ bool, err error) {
		t.Helper()
		must(t, err)
	}
}

// TestSpeakPref: /speak's choice is kept per key, and clearing it leaves
// nothing stored.
func TestSpeakPref(t *testing.T) {
	s := openTest(t)
	must(t, s.SetSpeak("42", "off"))
	if p, _ := s.Prefs("42"); p.Speak != "off" {
		t.Fatalf("speak = %q, want off", p.Speak)
	}
	if p, _ := s.Prefs("43"); p.Speak != "" {
		t.Errorf("another chat got %q", p.Speak)
	}
	must(t, s.SetSpeak("42", ""))
	if keys, _ := s.KnownChats(); slices.Contains(keys, "42") {
		t.Errorf("a cleared speak setting is still stored: %v", keys)
	}
}
