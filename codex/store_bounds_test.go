package codex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/host/hosttest"
)

// bigStore writes a year of threads of another project, perDay a day, each
// a first line as long as Codex's (about 21 kB), as a busy owner's store
// holds; it returns the home and the newest day.
func bigStore(t *testing.T, days, perDay int) (string, time.Time) {
	t.Helper()
	home := filepath.Join(t.TempDir(), "h")
	meta := `{"type":"session_meta","payload":{"id":"x","cwd":"/other","base_instructions":"` + strings.Repeat("a", 21000) + `"}}` + "\n"
	start := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	var day time.Time
	for d := range days {
		day = start.AddDate(0, 0, d)
		dir := filepath.Join(home, "sessions", day.Format("2006/01/02"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range perDay {
			at := day.Add(time.Duration(i) * time.Minute)
			id := uuid7At(at, i)
			p := filepath.Join(dir, "rollout-"+at.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
			if err := os.WriteFile(p, []byte(meta), 0o644); err != nil {
				t.Fatal(err)
			}
			touch(t, p, at)
		}
	}
	return home, day
}

// uuid7At is a version 7 UUID of time at.
func uuid7At(at time.Time, n int) string {
	ms := at.UnixMilli()
	return fmt.Sprintf("%08x-%04x-7000-8000-%012x", ms>>16, ms&0xffff, n)
}

func countCalls(rec *hosttest.Recorder) (opens, readDirs, all int) {
	for _, c := range rec.Calls() {
		switch {
		case strings.HasPrefix(c, "Open"):
			opens++
		case strings.HasPrefix(c, "ReadDir"):
			readDirs++
		}
		all++
	}
	return opens, readDirs, all
}

// /sessions in a project with no thread, in a store of 1,825 threads over
// a year: only the newest folders and files are looked at (the old code
// opened all 1,825 and read 379 folders), and a second listing opens no
// file that did not change.
func TestStoreListingIsBoundedInABigStore(t *testing.T) {
	home, _ := bigStore(t, 365, 5)
	rec := &hosttest.Recorder{}
	s := Store{Home: home, Host: rec}
	list, err := s.ListSessions(context.Background(), "/mine", 11)
	if err != nil || len(list) != 0 {
		t.Fatalf("list = %+v, %v", list, err)
	}
	opens, readDirs, _ := countCalls(rec)
	t.Logf("first listing: %d opens, %d folder reads", opens, readDirs)
	if opens > listFiles || readDirs > listDays+2+12 {
		t.Errorf("first listing: %d opens (at most %d), %d folder reads (at most %d days, the root, a year's and its months)",
			opens, listFiles, readDirs, listDays)
	}
	rec2 := &hosttest.Recorder{}
	s.Host = rec2
	if _, err := s.ListSessions(context.Background(), "/mine", 11); err != nil {
		t.Fatal(err)
	}
	if opens, _, _ := countCalls(rec2); opens != 0 {
		t.Errorf("second listing opened %d files that did not change", opens)
	}
}

// The threads of the project among many others: the newest are found, in
// order, up to limit, without opening more files than the bound.
func TestStoreListingFindsTheNewestAmongOthers(t *testing.T) {
	home, last := bigStore(t, 40, 5)
	b, err := os.ReadFile(filepath.Join("testdata/codexhome", fileA))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range 3 {
		at := last.AddDate(0, 0, -i).Add(time.Hour)
		id := uuid7At(at, 100+i)
		p := filepath.Join(home, "sessions", at.Format("2006/01/02"), "rollout-"+at.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		touch(t, p, at)
		want = append(want, id)
	}
	rec := &hosttest.Recorder{}
	s := Store{Home: home, Host: rec}
	list, err := s.ListSessions(context.Background(), dirA, 2)
	if err != nil || len(list) != 2 || list[0].ID != want[0] || list[1].ID != want[1] || list[0].Turns != 3 {
		t.Fatalf("list = %+v, %v; want %v", list, err, want[:2])
	}
	if opens, _, _ := countCalls(rec); opens > 2+2*5 {
		t.Errorf("%d opens to find the newest 2 of the newest 2 days' 12 threads", opens)
	}
}

// A thread of the bot's is asked about before every turn (StatSession) and
// read after every turn (ReadSession): a remembered thread costs one stat;
// an unchanged file is not opened; an id that is not a UUIDv7 and was never
// listed is not looked for in every folder.
func TestStoreStatAndReadAreCheap(t *testing.T) {
	home, last := bigStore(t, 365, 5)
	rec := &hosttest.Recorder{}
	s := Store{Home: home, Host: rec}
	const v4 = "0b6c1c2e-1c1b-4b7e-9f3a-1a2b3c4d5e6f"
	if _, ok := s.StatSession("/mine", v4); ok {
		t.Error("found a thread that is not there")
	}
	if _, _, all := countCalls(rec); all > 0 {
		t.Errorf("stat of an unknown non-UUIDv7 id made %d host calls: %v", all, len(rec.Calls()))
	}

	b, err := os.ReadFile(filepath.Join("testdata/codexhome", fileA))
	if err != nil {
		t.Fatal(err)
	}
	at := last.Add(time.Hour)
	id := uuid7At(at, 1000)
	p := filepath.Join(home, "sessions", at.Format("2006/01/02"), "rollout-"+at.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ReadSession(context.Background(), dirA, id); err != nil || got.Turns != 3 || got.Dir != dirA {
		t.Fatalf("read = %+v, %v", got, err)
	}
	rec2 := &hosttest.Recorder{}
	s.Host = rec2
	st, ok := s.StatSession(dirA, id)
	if !ok || st.Size != int64(len(b)) {
		t.Errorf("stat = %+v, %v", st, ok)
	}
	if got, err := s.ReadSession(context.Background(), dirA, id); err != nil || got.Turns != 3 || got.FirstPrompt != "hello there" {
		t.Errorf("read again = %+v, %v", got, err)
	}
	if opens, readDirs, all := countCalls(rec2); opens != 0 || readDirs != 0 || all > 2 {
		t.Errorf("stat and read of a remembered, unchanged thread: %v", len(rec2.Calls()))
	}

	// A prompt at the desk: the next read counts it.
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, `{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":[{"type":"text","text":"from the desk"}]}}}`)
	f.Close()
	if got, err := s.ReadSession(context.Background(), dirA, id); err != nil || got.Turns != 4 || got.FirstPrompt != "hello there" || got.Size != int64(len(b))+int64(len(`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":[{"type":"text","text":"from the desk"}]}}}`))+1 {
		t.Errorf("read after a prompt at the desk = %+v, %v", got, err)
	}
}

// A line being written (no newline yet) is counted, and read again once
// whole: a prompt is never counted twice nor lost.
func TestStoreReadsOnOverALineBeingWritten(t *testing.T) {
	home := recordedHome(t)
	s := Store{Home: home}
	p := filepath.Join(home, fileA)
	prompt := `{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":[{"type":"text","text":"x"}]}}}`
	appendTo := func(text string) {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
	}
	turns := func() int {
		got, err := s.ReadSession(context.Background(), dirA, idA)
		if err != nil {
			t.Fatal(err)
		}
		return got.Turns
	}
	if n := turns(); n != 3 {
		t.Fatalf("turns = %d, want 3", n)
	}
	appendTo(prompt[:40])
	if n := turns(); n != 3 {
		t.Errorf("with half a line: turns = %d, want 3", n)
	}
	appendTo(prompt[40:])
	if n := turns(); n != 4 {
		t.Errorf("with a last line without its newline: turns = %d, want 4", n)
	}
	appendTo("\n" + prompt + "\n")
	if n := turns(); n != 5 {
		t.Errorf("after one more prompt: turns = %d, want 5", n)
	}
	// The file replaced by a shorter one: read again from its start.
	b, err := os.ReadFile(filepath.Join("testdata/codexhome", fileA))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if n := turns(); n != 3 {
		t.Errorf("after the file was replaced: turns = %d, want 3", n)
	}
}
