// Package hold keeps a Claude Code process alive when the bot is not: a
// small holder process (`untether hold`, this package's Main) starts the
// CLI in a session of its own, owns its stdin, stdout and stderr, journals
// every line with a sequence number, and serves one client at a time on a
// unix socket. The bot attaches, replays the journal from where it left off,
// writes prompts and control answers through it, and detaches when it stops;
// a bot started later attaches again. See docs/durability.md.
//
// It knows neither Telegram nor Claude Code's protocol: lines in, lines out.
package hold

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// Proto is the version of the protocol between a bot and a holder. A
// holder refuses a hello of another version, and the bot then treats the
// session as gone (the turn is reported interrupted, as before holders
// existed). Bump it on any incompatible change of the frames below.
const Proto = 1

// VersionError is a holder's refusal of a client of another protocol: the
// holder runs (its Claude too), but this client cannot speak to it. The
// hello and the welcome's proto and error fields are the part of the
// protocol that never changes, so that every version can say this.
type VersionError struct{ Holder int }

func (e *VersionError) Error() string {
	return fmt.Sprintf("its holder speaks protocol %d, this bot %d", e.Holder, Proto)
}

// The frames, one a line: a letter, a space, fields separated by one
// space; the last field of o and i is the line itself (JSON from or for
// the CLI, never holding a newline).
//
// Client to holder (after the hello, a JSON line):
//
//	i ID LINE   write LINE to the CLI's stdin, once per ID (a resend is acked, not written)
//	c           close the CLI's stdin (it exits shortly after)
//	k SIGNUM    signal the CLI's process group
//	t SEQ       records up to SEQ are delivered: the journal may drop them
//	q           the session is over: remove the files and exit once the CLI has
//
// Holder to client (after the hello's answer, a JSON line):
//
//	o SEQ LINE  a line the CLI wrote to stdout (journaled)
//	i SEQ LINE  a line written to its stdin (journaled; sent only when replayed)
//	r SEQ       the replay is done: SEQ is the last record there was
//	a ID SEQ    input ID was written (or had been) as record SEQ
//	e TEXT      stderr of the CLI, quoted (strconv.Quote); not journaled
//	x JSON      the CLI has exited (Exit)
const (
	kindOut    = 'o'
	kindIn     = 'i'
	kindReplay = 'r'
	kindAck    = 'a'
	kindErr    = 'e'
	kindExit   = 'x'
)

// Hello is the client's first line.
type Hello struct {
	Proto  int    `json:"proto"`
	Secret string `json:"secret"`
	// From is the first record to replay; 0 means none (only what comes
	// from now on).
	From uint64 `json:"from"`
}

// Welcome is the holder's answer to a hello.
type Welcome struct {
	Proto int    `json:"proto"`
	Error string `json:"error,omitempty"`
	// Pid is the CLI's process id (it leads its own process group).
	Pid int `json:"pid"`
	// LastIn is the last input ID written: the client numbers on from it.
	LastIn uint64 `json:"last_in"`
	// First and Last bound the records the journal holds now.
	First uint64 `json:"first"`
	Last  uint64 `json:"last"`
}

// Exit is how the CLI ended.
type Exit struct {
	Code       int    `json:"code"`
	Signal     string `json:"signal,omitempty"`
	StderrTail string `json:"stderr_tail,omitempty"`
}

// Record is one journaled line.
type Record struct {
	Seq  uint64
	In   bool // written to stdin (true) or read from stdout
	Line []byte
}

// appendRecord encodes r as a frame (and journal line), newline included.
func appendRecord(b []byte, r Record) []byte {
	k := byte(kindOut)
	if r.In {
		k = kindIn
	}
	b = append(b, k, ' ')
	b = strconv.AppendUint(b, r.Seq, 10)
	b = append(b, ' ')
	b = append(b, r.Line...)
	return append(b, '\n')
}

var errFrame = errors.New("malformed frame")

// parseRecord decodes an o or i frame without its newline. Line aliases b.
func parseRecord(b []byte) (Record, error) {
	if len(b) < 3 || (b[0] != kindOut && b[0] != kindIn) || b[1] != ' ' {
		return Record{}, errFrame
	}
	rest := b[2:]
	sp := bytes.IndexByte(rest, ' ')
	if sp < 0 {
		return Record{}, errFrame
	}
	seq, err := strconv.ParseUint(string(rest[:sp]), 10, 64)
	if err != nil {
		return Record{}, errFrame
	}
	return Record{Seq: seq, In: b[0] == kindIn, Line: rest[sp+1:]}, nil
}

// maxLine bounds one line the holder reads from the CLI or a client; the
// runner's own cap (32 MiB by default) is below it.
const maxLine = 64 << 20

// longLineError is a line over maxLine, skipped through its newline: the
// stream goes on at the next line.
type longLineError struct{ n int64 }

func (e *longLineError) Error() string {
	return fmt.Sprintf("line of %d bytes over %d skipped", e.n, maxLine)
}

// readLine reads one line without its newline. A line over maxLine is
// skipped to its newline and reported as a *longLineError (the next call
// reads the line after it); one that the stream's end cuts short is
// that end's error.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > maxLine {
			return nil, skipLine(r, int64(len(line)+len(chunk)), err)
		}
		switch {
		case err == nil:
			if line == nil {
				return chunk[:len(chunk)-1], nil
			}
			line = append(line, chunk[:len(chunk)-1]...)
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			line = append(line, chunk...)
		default:
			// A last line without a newline goes with the stream's end,
			// as the runner's own reader drops it.
			return nil, err
		}
	}
}

// skipLine reads on to the newline of a line of which n bytes were read;
// err is the last read's.
func skipLine(r *bufio.Reader, n int64, err error) error {
	for errors.Is(err, bufio.ErrBufferFull) {
		var chunk []byte
		chunk, err = r.ReadSlice('\n')
		n += int64(len(chunk))
	}
	if err != nil {
		return err // the stream ended inside the line
	}
	return &longLineError{n: n - 1}
}
