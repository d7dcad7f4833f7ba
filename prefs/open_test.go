package prefs

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func TestOpenCreatesDirAndFileWithPrivateModes(t *testing.T) {
	path := dbPath(t)
	s := openAt(t, path)
	if s.path != path {
		t.Errorf("Path() = %q, want %q", s.path, path)
	}
	for p, want := range map[string]os.FileMode{filepath.Dir(path): 0o700, path: 0o600, ownerPath(path): 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s mode = %v, want %v", p, got, want)
		}
	}
}

func TestPathIsAbsolute(t *testing.T) {
	t.Chdir(t.TempDir())
	s := openAt(t, "rel/untether.db")
	if !filepath.IsAbs(s.path) || !strings.HasSuffix(s.path, "rel/untether.db") {
		t.Errorf("Path() = %q, want absolute path ending in rel/untether.db", s.path)
	}
}

func TestCloseIsIdempotentAndRemovesOwnerNote(t *testing.T) {
	path := dbPath(t)
	s, err := Open(context.Background(), path, WithLogger(quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("first Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := os.Stat(ownerPath(path)); !os.IsNotExist(err) {
		t.Errorf("owner note still there after Close (stat err %v)", err)
	}
	if _, err := s.Prefs("1"); !errors.Is(err, errClosed) {
		t.Errorf("GetPrefs after Close: err = %v, want errClosed", err)
	}
	if err := s.SetOffset(5); !errors.Is(err, errClosed) {
		t.Errorf("SetOffset after Close: err = %v, want errClosed", err)
	}
}

func TestOpenHonoursCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := dbPath(t)
	if _, err := Open(ctx, path); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("file created despite cancelled context (stat err %v)", err)
	}
}

func storedVersion(t *testing.T, path string) (uint64, bool) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v uint64
	var ok bool
	if err := db.View(func(tx *bolt.Tx) error {
		if m := tx.Bucket(bucketMeta); m != nil {
			if raw := m.Get(keyVersion); raw != nil {
				v, ok = binary.BigEndian.Uint64(raw), true
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return v, ok
}

func TestSchemaVersionRecordedOnCreate(t *testing.T) {
	path := dbPath(t)
	s := openAt(t, path)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	v, ok := storedVersion(t, path)
	if !ok || v != schemaVersion {
		t.Fatalf("stored version = %d (present %v), want %d", v, ok, schemaVersion)
	}
}

func TestMigratesVersionZeroFile(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(tx *bolt.Tx) error
	}{
		{"empty bbolt file", func(*bolt.Tx) error { return nil }},
		{"meta bucket without version", func(tx *bolt.Tx) error {
			_, err := tx.CreateBucket(bucketMeta)
			return err
		}},
		{"some buckets already there", func(tx *bolt.Tx) error {
			b, err := tx.CreateBucket(bucketPrefs)
			if err != nil {
				return err
			}
			return b.Put([]byte("42"), []byte(`{"model":"opus"}`))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "v0.db")
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(tc.setup); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if _, ok := storedVersion(t, path); ok {
				t.Fatal("setup already has a version")
			}

			s := openAt(t, path)
			// Every operation needs its bucket: exercise one of each.
			if _, _, err := s.AcceptUpdate(1, "42", &Prompt{Text: "hi"}); err != nil {
				t.Fatalf("AcceptUpdate after migration: %v", err)
			}
			if _, err := s.RecordTurnCost("42", "sess", 1, time.Now()); err != nil {
				t.Fatal(err)
			}
			if err := s.StartSession("42", "sess", "", ""); err != nil {
				t.Fatal(err)
			}
			if err := s.AddLive(LiveMessage{Kind: LivePrompt, ChatID: 42, MessageID: 1}); err != nil {
				t.Fatal(err)
			}
			p, err := s.Prefs("42")
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "some buckets already there" && p.Model != "opus" {
				t.Errorf("existing data lost in migration: %+v", p)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if v, ok := storedVersion(t, path); !ok || v != schemaVersion {
				t.Fatalf("version after migration = %d (present %v), want %d", v, ok, schemaVersion)
			}
		})
	}
}

func TestNewerSchemaIsRefusedAndFileUntouched(t *testing.T) {
	path := dbPath(t)
	s := openAt(t, path)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(keyVersion, binary.BigEndian.AppendUint64(nil, schemaVersion+1))
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, path)

	_, err = Open(context.Background(), path, WithLogger(quietLogger()))
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("err = %v, want ErrNewerSchema", err)
	}
	for _, want := range []string{path, fmt.Sprint(schemaVersion + 1), "not modified"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	assertUnchanged(t, path, before)
}

// refuseCorrupt writes data to a file, opens it, and checks the refusal and that nothing changed.
func refuseCorrupt(t *testing.T, data []byte) error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "broken.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path, WithLogger(quietLogger()))
	if err == nil {
		s.Close()
		t.Fatalf("Open of a corrupt file succeeded")
	}
	t.Log(err)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("err = %v, want ErrCorrupt", err)
	}
	for _, want := range []string{path, "not modified"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	assertUnchanged(t, path, data)
	return err
}

func randomBytes(n int, seed byte) []byte {
	r := rand.New(rand.NewChaCha8([32]byte{seed}))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestRandomBytesAreRefused(t *testing.T) {
	for _, n := range []int{1, 100, 8192, 65536} {
		t.Run(fmt.Sprint(n), func(t *testing.T) { refuseCorrupt(t, randomBytes(n, byte(n))) })
	}
}

// populatedFile returns the bytes of a valid store spanning many pages.
func populatedFile(t *testing.T) []byte {
	t.Helper()
	path := dbPath(t)
	s := openAt(t, path)
	for i := range 60 {
		key := fmt.Sprint(1000 + i%6)
		if _, _, err := s.AcceptUpdate(int64(i+1), key, &Prompt{Text: strings.Repeat("p", 400)}); err != nil {
			t.Fatal(err)
		}
		if err := s.SetModel(fmt.Sprint("chat", i), strings.Repeat("m", 50)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return readFile(t, path)
}

func TestTruncatedFileIsRefused(t *testing.T) {
	valid := populatedFile(t)
	const page = 4096
	if len(valid) < 8*page {
		t.Fatalf("test needs a larger file, got %d bytes", len(valid))
	}
	for _, n := range []int{len(valid) / 2, 3 * page, 2*page + 100, page + 1, 100} {
		t.Run(fmt.Sprint(n), func(t *testing.T) { refuseCorrupt(t, valid[:n]) })
	}
}

func TestGarbageInDataPagesIsRefused(t *testing.T) {
	valid := populatedFile(t)
	const page = 4096
	// Everything but the two meta pages: the roots of all buckets are in there.
	all := append([]byte(nil), valid...)
	copy(all[2*page:], randomBytes(len(valid)-2*page, 7))
	refuseCorrupt(t, all)
}

func TestGarbageInAnySinglePageNeverCrashesOrWrites(t *testing.T) {
	valid := populatedFile(t)
	const page = 4096
	refused := 0
	for pg := 2; pg < len(valid)/page; pg++ {
		data := append([]byte(nil), valid...)
		copy(data[pg*page:(pg+1)*page], randomBytes(page, byte(pg)))
		path := filepath.Join(t.TempDir(), "p.db")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(context.Background(), path, WithLogger(quietLogger()))
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("page %d: err = %v, want ErrCorrupt", pg, err)
			}
			assertUnchanged(t, path, data)
			refused++
			continue
		}
		// Free or unused pages carry nothing; the store must then work normally.
		if _, err := s.AllPendingPrompts(); err != nil {
			t.Errorf("page %d: opened but unreadable: %v", pg, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if refused == 0 {
		t.Fatal("no single-page corruption was detected")
	}
}

func TestEmptyFileIsInitialised(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := openAt(t, path)
	if err := s.SetOffset(9); err != nil {
		t.Fatal(err)
	}
}

func TestUnreadableFileIsAnErrorNamingIt(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores file permissions")
	}
	path := dbPath(t)
	s := openAt(t, path)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path, WithLogger(quietLogger()))
	if err == nil || !strings.Contains(err.Error(), path) || !errors.Is(err, os.ErrPermission) {
		t.Fatalf("err = %v, want a permission error naming %s", err, path)
	}
}

func TestDirectoryInPlaceOfFileIsAnErrorNamingIt(t *testing.T) {
	path := dbPath(t)
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path, WithLogger(quietLogger()))
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("err = %v, want an error naming %s as a directory", err, path)
	}
}
