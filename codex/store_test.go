package codex

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testdata/codexhome holds two threads recorded from Codex 0.171.0 (the
// measurement in docs/protocol-codex.md, "Codex's threads on disk"):
//   - thread A in dirA: "hello there", "run: echo hi > out.txt" (approved),
//     "second prompt", written with the machine in UTC;
//   - thread B in dirB: "hello there", then the app-server closed, a new
//     one resumed it and "after resume": one file. Written with
//     TZ=Pacific/Kiritimati (UTC+14): its folder is the next day's.
const (
	idA  = "01a223df-9734-7a82-b935-59611a19acf0"
	dirA = "/tmp/TestZZMeasureStore1008463304/002"
	idB  = "01a223e0-6afe-7863-9816-8d88bb5ec23f"
	dirB = "/tmp/TestZZMeasureStore104238973/002"
)

var (
	fileA = filepath.Join("sessions/2026/11/28", "rollout-2026-11-28T20-36-25-"+idA+".jsonl")
	fileB = filepath.Join("sessions/2026/11/29", "rollout-2026-11-29T10-37-19-"+idB+".jsonl")
)

// recordedHome copies the recorded store to a temporary CODEX_HOME whose
// files' times the test sets (git keeps none).
func recordedHome(t *testing.T) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "codexhome")
	if out, err := exec.Command("cp", "-r", "testdata/codexhome", home).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v %s", err, out)
	}
	return home
}

func touch(t *testing.T, p string, when time.Time) {
	t.Helper()
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
}

func TestStoreListsTheDirectorysThreadsOnly(t *testing.T) {
	home := recordedHome(t)
	s := Store{Home: home}
	base := time.Date(2026, 11, 28, 21, 0, 0, 0, time.UTC)
	touch(t, filepath.Join(home, fileA), base)
	touch(t, filepath.Join(home, fileB), base.Add(time.Minute))
	list, err := s.ListSessions(context.Background(), dirA, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("list of dirA = %+v, want thread A only", list)
	}
	a := list[0]
	fi, _ := os.Stat(filepath.Join(home, fileA))
	if a.ID != idA || a.FirstPrompt != "hello there" || a.Turns != 3 || a.Dir != dirA ||
		!a.Modified.Equal(base) || a.Size != fi.Size() {
		t.Errorf("thread A = %+v (size on disk %d)", a, fi.Size())
	}
	list, err = s.ListSessions(context.Background(), dirB, 0)
	if err != nil || len(list) != 1 || list[0].ID != idB || list[0].Turns != 2 || list[0].FirstPrompt != "hello there" {
		t.Errorf("list of dirB = %+v, %v; want thread B with its prompt before and after the resume", list, err)
	}
	if list, err := s.ListSessions(context.Background(), "/elsewhere", 0); err != nil || len(list) != 0 {
		t.Errorf("list of another directory = %+v, %v", list, err)
	}
}

// A thread B's file under another name of the same form stands for a
// second thread of dirB: the list is newest first and limit holds.
func TestStoreListsNewestFirstUpToLimit(t *testing.T) {
	home := recordedHome(t)
	s := Store{Home: home}
	const idC = "01a223e0-6afe-7863-9816-000000000001"
	copyC := filepath.Join(home, "sessions/2026/11/29", "rollout-2026-11-29T10-40-00-"+idC+".jsonl")
	b, err := os.ReadFile(filepath.Join(home, fileB))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyC, b, 0o600); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 28, 21, 0, 0, 0, time.UTC)
	touch(t, filepath.Join(home, fileB), base.Add(2*time.Minute))
	touch(t, copyC, base)
	list, err := s.ListSessions(context.Background(), dirB, 0)
	if err != nil || len(list) != 2 || list[0].ID != idB || list[1].ID != idC {
		t.Fatalf("list = %+v, %v; want B then the older C", list, err)
	}
	touch(t, copyC, base.Add(time.Hour))
	list, err = s.ListSessions(context.Background(), dirB, 1)
	if err != nil || len(list) != 1 || list[0].ID != idC {
		t.Errorf("list with limit 1 = %+v, %v; want the newest, C", list, err)
	}
}

func TestStoreReadsAThreadOfAnotherDirectoryButItDoesNotBelong(t *testing.T) {
	s := Store{Home: recordedHome(t)}
	p, err := s.ReadSession(context.Background(), dirA, idB)
	if err != nil {
		t.Fatal(err)
	}
	if p.Dir != dirB || p.BelongsTo(dirA) || !p.BelongsTo(dirB) || p.Turns != 2 {
		t.Errorf("thread B read from dirA's chat = %+v", p)
	}
	if _, err := s.ReadSession(context.Background(), dirA, "01a223df-0000-7000-8000-000000000000"); err == nil {
		t.Error("a thread the store does not have was read")
	}
	for _, bad := range []string{"../../etc/passwd", "", "-rf", "01a223df/../x"} {
		if _, ok := s.StatSession(dirA, bad); ok {
			t.Errorf("StatSession(%q) found something", bad)
		}
	}
}

// Thread B started at 20:37 UTC on the 28th, its folder is the 29th's
// (UTC+14): found from its id's time, a day either side.
func TestStoreStatFindsTheFolderFromTheIDsTime(t *testing.T) {
	home := recordedHome(t)
	s := Store{Home: home}
	when := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	touch(t, filepath.Join(home, fileB), when)
	p, ok := s.StatSession(dirB, idB)
	fi, _ := os.Stat(filepath.Join(home, fileB))
	if !ok || p.ID != idB || !p.Modified.Equal(when) || p.Size != fi.Size() {
		t.Errorf("stat B = %+v, %v", p, ok)
	}
	if ts, ok := uuid7Time(idB); !ok || ts != time.Date(2026, 11, 28, 20, 37, 19, 742e6, time.UTC) {
		t.Errorf("id B's time = %v, %v; session_meta says 20:37:19.745Z", ts, ok)
	}
	// An id that is not a UUIDv7 (Codex before them) is not looked for
	// in every folder: it is found once a listing saw it.
	const v4 = "1b4e28ba-2fa1-41d2-883f-0016d3cca427"
	old := filepath.Join(home, "sessions/2025/01/02", "rollout-2025-01-02T03-04-05-"+v4+".jsonl")
	if err := os.MkdirAll(filepath.Dir(old), 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(home, fileA))
	if err := os.WriteFile(old, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if p, ok := s.StatSession(dirA, v4); ok {
		t.Errorf("stat of a v4 id never listed = %+v: every folder was walked", p)
	}
	if list, err := s.ListSessions(context.Background(), dirA, 0); err != nil || len(list) != 2 {
		t.Fatalf("list of dirA = %+v, %v; want A and the old copy", list, err)
	}
	if p, ok := s.StatSession(dirA, v4); !ok || p.Size != int64(len(b)) {
		t.Errorf("stat of a v4 id listed = %+v, %v", p, ok)
	}
}

func TestStoreWithoutSessionsFolderIsEmpty(t *testing.T) {
	s := Store{Home: t.TempDir()}
	if list, err := s.ListSessions(context.Background(), dirA, 0); err != nil || len(list) != 0 {
		t.Errorf("list = %+v, %v", list, err)
	}
	if _, ok := s.StatSession(dirA, idA); ok {
		t.Error("stat found a thread in an empty home")
	}
}

func TestScanRolloutSkipsLongLinesAndOtherUsers(t *testing.T) {
	in := strings.Join([]string{
		`{"timestamp":"x","type":"session_meta","payload":{"id":"a","cwd":"/p"}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>"}]}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","content":[{"type":"Text","text":"UserMessage"}]}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","aggregated_output":"` + strings.Repeat("x", maxRolloutLine) + `"}}}`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":[{"type":"text","text":"one"},{"type":"image","url":"u"},{"type":"text","text":"two"}]}}}`,
		`not json "UserMessage"`,
		`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":[{"type":"text","text":"three"}]}}}`,
	}, "\n")
	cwd, first, turns, err := scanRollout(strings.NewReader(in), "")
	if err != nil || cwd != "/p" || first != "one\ntwo" || turns != 2 {
		t.Errorf("scan = %q %q %d %v", cwd, first, turns, err)
	}
	if cwd, first, turns, _ = scanRollout(strings.NewReader(in), "/q"); cwd != "/p" || first != "" || turns != 0 {
		t.Errorf("scan for another directory = %q %q %d, want its cwd only", cwd, first, turns)
	}
}

func TestCodexHome(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"HOME=/h"}, "/h/.codex"},
		{[]string{"HOME=/h", "CODEX_HOME=/c"}, "/c"},
	} {
		if got := (Options{Env: c.env}).withDefaults().codexHome(); got != c.want {
			t.Errorf("env %v: %q, want %q", c.env, got, c.want)
		}
	}
	// [codex.env] wins over the bot's environment.
	if got := (Options{Env: []string{"HOME=/h", "CODEX_HOME=/c"}, ExtraEnv: []string{"CODEX_HOME=/x"}}).withDefaults().codexHome(); got != "/x" {
		t.Errorf("with ExtraEnv: %q", got)
	}
	if (&Engine{Base: Options{Env: []string{"PATH=/bin"}}}).SessionStore() != nil {
		t.Error("a store without a home")
	}
}
