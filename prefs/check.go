package prefs

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"
)

// readAll proves that db (opened read-only) can be read end to end and carries a schema we know.
//
// bbolt trusts the page numbers it finds in the file and reads them straight from its memory
// map: a truncated file makes it touch memory past the end of the file, which is a fault, not
// an error. So the size is checked against the high-water mark first, and the full walk runs with
// faults turned into panics that are recovered here.
func readAll(db *bolt.DB, path string) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = corruptError(path, fmt.Errorf("reading it failed: %v", r))
		}
	}()

	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("open state file %s: %w", path, err)
	}
	return db.View(func(tx *bolt.Tx) error {
		if need := tx.Size(); need > info.Size() {
			return corruptError(path, fmt.Errorf("file is %d bytes but its index needs %d: truncated", info.Size(), need))
		}
		if err := walk(tx); err != nil {
			return corruptError(path, err)
		}
		// bbolt's own consistency check covers what a plain walk cannot see (free pages,
		// double references, key order). It recovers its own panics into errors.
		var problems []error
		for e := range tx.Check() {
			if len(problems) < 3 {
				problems = append(problems, e)
			}
		}
		if len(problems) > 0 {
			return corruptError(path, errors.Join(problems...))
		}
		v, err := readVersion(tx)
		if err != nil {
			return corruptError(path, err)
		}
		if v > schemaVersion {
			return newerSchemaError(path, v)
		}
		return nil
	})
}

// walk touches every key and value in every bucket, so that a damaged page shows up now rather
// than in the middle of a later write.
func walk(tx *bolt.Tx) error {
	var touched byte // the bytes are really read, so a bogus page faults here, under recover
	var visit func(b *bolt.Bucket, depth int) error
	visit = func(b *bolt.Bucket, depth int) error {
		if depth > 8 {
			return errors.New("buckets nested implausibly deep")
		}
		return b.ForEach(func(k, v []byte) error {
			for _, s := range [][]byte{k, v} {
				if len(s) > 0 {
					touched ^= s[0] ^ s[len(s)-1]
				}
			}
			if v != nil {
				return nil
			}
			child := b.Bucket(k)
			if child == nil {
				return fmt.Errorf("key %q: neither value nor bucket", k)
			}
			return visit(child, depth+1)
		})
	}
	err := tx.ForEach(func(name []byte, b *bolt.Bucket) error {
		if err := visit(b, 0); err != nil {
			return fmt.Errorf("bucket %q: %w", name, err)
		}
		return nil
	})
	runtime.KeepAlive(touched)
	return err
}
