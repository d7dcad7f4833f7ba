package safefile

import "bytes"

// Capped keeps the first Max bytes written to it and drops the rest, so a
// runaway or chatty program's output cannot fill the memory. Write never
// fails: the program is not stopped by it.
type Capped struct {
	bytes.Buffer
	Max int
}

func (b *Capped) Write(p []byte) (int, error) {
	if room := b.Max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
