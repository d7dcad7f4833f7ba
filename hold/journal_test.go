package hold

import (
	"bytes"
	"strconv"
	"testing"
)

func TestJournalTrimAndBound(t *testing.T) {
	j, err := openJournal(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	line := bytes.Repeat([]byte("x"), 100)
	for i := range 10 {
		if seq, err := j.add(i%2 == 0, line); err != nil || seq != uint64(i+1) {
			t.Fatalf("add %d: seq %d, %v", i, seq, err)
		}
	}
	// A little delivered: the file is kept as it is.
	if err := j.trim(2); err != nil || j.first != 1 {
		t.Fatalf("trim 2: first %d, %v", j.first, err)
	}
	// Most of it delivered: rewritten without it, the rest readable.
	if err := j.trim(7); err != nil || j.first != 8 || j.last() != 10 {
		t.Fatalf("trim 7: %d..%d, %v", j.first, j.last(), err)
	}
	for seq := uint64(8); seq <= 10; seq++ {
		b, err := j.read(seq)
		if err != nil {
			t.Fatal(err)
		}
		r, err := parseRecord(b[:len(b)-1])
		if err != nil || r.Seq != seq || !bytes.Equal(r.Line, line) {
			t.Fatalf("record %d after the trim: %+v %v", seq, r, err)
		}
	}
	if _, err := j.read(7); err == nil {
		t.Error("a dropped record was read")
	}
	if seq, err := j.add(false, line); err != nil || seq != 11 {
		t.Fatalf("add after the trim: %d %v", seq, err)
	}

	// A bound: past it the oldest records go, however little was delivered.
	b, err := openJournal(t.TempDir(), 2000)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	for i := range 100 {
		if _, err := b.add(false, []byte(strconv.Itoa(i)+string(line))); err != nil {
			t.Fatal(err)
		}
		if b.size > 2000 {
			t.Fatalf("journal of %d bytes past its bound", b.size)
		}
	}
	if b.last() != 100 || b.first == 1 {
		t.Errorf("bounded journal holds %d..%d", b.first, b.last())
	}
	if r, _ := b.read(100); !bytes.Contains(r, []byte("99x")) {
		t.Errorf("newest record %q", r)
	}
}
