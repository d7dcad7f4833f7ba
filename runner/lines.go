package runner

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// lineReader reads newline-terminated lines of any length up to max bytes.
// Longer lines are consumed and reported as skipped, so one huge tool result
// can neither exhaust memory nor desynchronize the stream.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its newline. When a line was longer
// than max, line is nil and skipped is its length. err is io.EOF at the end;
// a final line without a newline is still returned first.
func (lr *lineReader) next() (line []byte, skipped int, err error) {
	lr.buf = lr.buf[:0]
	n := 0
	for {
		chunk, err := lr.r.ReadSlice('\n')
		n += len(chunk)
		if skipped == 0 && n > lr.max+1 {
			// Over the cap: stop buffering, keep counting.
			lr.buf = lr.buf[:0]
			skipped = n
		}
		if skipped > 0 {
			skipped = n
		} else {
			lr.buf = append(lr.buf, chunk...)
		}
		switch {
		case err == nil:
			if skipped > 0 {
				return nil, skipped, nil
			}
			return trimNewline(lr.buf), 0, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && (len(lr.buf) > 0 || skipped > 0):
			if skipped > 0 {
				return nil, skipped, nil
			}
			return trimNewline(lr.buf), 0, nil
		default:
			return nil, 0, err
		}
	}
}

func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// tail keeps the last n bytes written to it.
type tail struct {
	n   int
	buf []byte
	cut bool // bytes were dropped from the front
}

func (t *tail) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.n; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(p), nil
}

// maxPartialLine bounds what is dropped from a tail with no line break:
// far more than any secret, so none can leave a piece at the cut.
const maxPartialLine = 1 << 10

// String returns the tail from its first whole line: the line the cut went
// through could hold the end of a secret that no redactor would recognise.
func (t *tail) String() string {
	b := t.buf
	if t.cut {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		} else {
			b = b[min(len(b), maxPartialLine):]
		}
	}
	return string(b)
}
