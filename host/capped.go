package host

import "bytes"

// Capped is a process's output kept to its first Max bytes: what a caller
// reads of a program it does not trust to stop talking (git there, a
// version probe). The rest is counted out, not kept; Cut says it came.
type Capped struct {
	Max int
	Cut bool
	buf bytes.Buffer
}

func (c *Capped) Write(p []byte) (int, error) {
	room := c.Max - c.buf.Len()
	if room < len(p) {
		c.Cut = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

// Bytes is what was kept.
func (c *Capped) Bytes() []byte { return c.buf.Bytes() }

// String is what was kept.
func (c *Capped) String() string { return c.buf.String() }
