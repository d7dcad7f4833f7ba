package hold

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"strconv"
	"syscall"
	"time"
)

// client is the attached bot, as the holder sees it.
type client struct {
	conn   net.Conn
	acks   [][2]uint64 // input id, record
	stderr []string
	// replaced: a newer client attached; none of this one's frames is
	// carried out any more (under the holder's mu).
	replaced bool
	done     chan struct{} // closed once its frames are no longer carried out
}

// replaceWait bounds how long a new client's welcome waits for the frame
// of the client it replaces that is being carried out (a write to a CLI
// that does not read its stdin); it is below the client's helloWait.
const (
	replaceWait = 2 * time.Second
	// frameQueue is how many frames of a client are read ahead of the one
	// carried out, so that its leaving is seen while a write is stuck.
	frameQueue = 16
)

// attach serves one connection: the hello, then frames both ways until it
// drops or a newer client takes its place.
func (h *holder) attach(c net.Conn) {
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(helloWait))
	br := bufio.NewReaderSize(c, 64<<10)
	line, err := readLine(br)
	if err != nil {
		return
	}
	var hello Hello
	if err := json.Unmarshal(line, &hello); err != nil {
		return
	}
	if hello.Proto != Proto {
		writeJSON(c, Welcome{Proto: Proto, Error: "protocol " + strconv.Itoa(hello.Proto) + " asked, this holder speaks " + strconv.Itoa(Proto)})
		return
	}
	if !secretOK(hello.Secret, h.cfg.Secret) {
		h.log.Warn("a client with a wrong secret was refused")
		writeJSON(c, Welcome{Proto: Proto, Error: "wrong secret"})
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	cl := &client{conn: c, done: make(chan struct{})}
	h.mu.Lock()
	old := h.newest
	if old != nil {
		old.replaced = true
	}
	h.client, h.newest = cl, cl
	h.broadcast()
	h.mu.Unlock()
	if old != nil {
		// A newer bot took over (the old one is gone, or soon will be).
		// The welcome's LastIn must count the old one's last line: its
		// frame being carried out is waited for (nothing after it is).
		_ = old.conn.Close()
		select {
		case <-old.done:
		case <-time.After(replaceWait):
			h.log.Warn("the replaced client's input is still being written")
		}
	}
	h.mu.Lock()
	if h.client != cl {
		// Replaced meanwhile, before its welcome.
		h.mu.Unlock()
		close(cl.done)
		return
	}
	w := Welcome{Proto: Proto, Pid: h.cmd.Process.Pid, LastIn: h.lastIn, First: h.j.first, Last: h.j.last()}
	from := hello.From
	if from == 0 {
		from = w.Last + 1
	}
	h.broadcast()
	h.mu.Unlock()
	h.log.Info("client attached", "from", from, "last", w.Last)
	go h.send(cl, w, from)
	h.readClient(cl, br)
	h.left(cl)
	h.log.Info("client detached")
}

// left notes that cl's connection ended: the orphan time runs from now
// unless a newer client is attached.
func (h *holder) left(cl *client) {
	h.mu.Lock()
	if h.client == cl {
		h.client = nil
		h.detached = time.Now()
	}
	h.broadcast()
	h.mu.Unlock()
}

func writeJSON(c net.Conn, v any) {
	b, _ := json.Marshal(v)
	_ = c.SetWriteDeadline(time.Now().Add(helloWait))
	_, _ = c.Write(append(b, '\n'))
}

// send writes the welcome, the replay from record from, its end marker,
// then what comes: output records, acks, stderr, the exit.
func (h *holder) send(cl *client, w Welcome, from uint64) {
	bw := bufio.NewWriterSize(cl.conn, 64<<10)
	b, _ := json.Marshal(w)
	_, _ = bw.Write(append(b, '\n'))
	next, replayed, exitSent := from, false, false
	var buf []byte
	for {
		h.mu.Lock()
		if h.client != cl {
			h.mu.Unlock()
			return
		}
		buf = buf[:0]
		for n := 0; next <= h.j.last() && n < 512; n++ {
			next = max(next, h.j.first) // records dropped past the bound are gone
			rec, err := h.j.read(next)
			if err != nil {
				h.log.Warn("read journal", "err", err)
				break
			}
			// Input is the client's own; it gets it back only in a replay.
			if rec[0] != kindIn || next <= w.Last {
				buf = append(buf, rec...)
			}
			next++
		}
		if !replayed && next > w.Last {
			replayed = true
			buf = append(buf, kindReplay, ' ')
			buf = strconv.AppendUint(buf, w.Last, 10)
			buf = append(buf, '\n')
		}
		for _, a := range cl.acks {
			buf = append(buf, kindAck, ' ')
			buf = strconv.AppendUint(buf, a[0], 10)
			buf = append(buf, ' ')
			buf = strconv.AppendUint(buf, a[1], 10)
			buf = append(buf, '\n')
		}
		cl.acks = nil
		for _, s := range cl.stderr {
			buf = append(buf, kindErr, ' ')
			buf = append(buf, strconv.Quote(s)...)
			buf = append(buf, '\n')
		}
		cl.stderr = nil
		caughtUp := next > h.j.last()
		if h.exit != nil && caughtUp && replayed && !exitSent {
			exitSent = true
			eb, _ := json.Marshal(h.exit)
			buf = append(buf, kindExit, ' ')
			buf = append(buf, eb...)
			buf = append(buf, '\n')
		}
		changed := h.changed
		h.mu.Unlock()
		if _, err := bw.Write(buf); err != nil {
			_ = cl.conn.Close()
			return
		}
		if caughtUp {
			if err := bw.Flush(); err != nil {
				_ = cl.conn.Close()
				return
			}
			<-changed
		}
	}
}

// readClient carries out the client's frames until its connection ends or
// a newer client replaces it. The frames are read ahead on a goroutine of
// their own: a client that leaves while its line is stuck on the way to
// the CLI's stdin is seen to leave (the orphan time runs).
func (h *holder) readClient(cl *client, br *bufio.Reader) {
	defer close(cl.done)
	frames, gone, stop := make(chan []byte, frameQueue), make(chan struct{}), make(chan struct{})
	defer close(stop)
	go func() {
		defer close(frames)
		for {
			line, err := readLine(br)
			if err != nil || len(line) == 0 {
				close(gone)
				return
			}
			select {
			case frames <- bytes.Clone(line):
			case <-stop:
				return
			}
		}
	}()
	go func() {
		select {
		case <-gone:
			h.left(cl)
		case <-stop:
		}
	}()
	for line := range frames {
		if !h.carryOut(cl, line) {
			return
		}
	}
}

// carryOut carries out one frame of cl; false: read no more of it.
func (h *holder) carryOut(cl *client, line []byte) bool {
	h.mu.Lock()
	replaced := cl.replaced
	h.mu.Unlock()
	if replaced {
		return false
	}
	arg := []byte(nil)
	if len(line) > 2 {
		arg = line[2:]
	}
	switch line[0] {
	case kindIn:
		sp := bytes.IndexByte(arg, ' ')
		if sp < 0 {
			return false
		}
		id, err := parseUint(arg[:sp])
		if err != nil {
			return false
		}
		seq, err := h.input(cl, id, arg[sp+1:])
		if err != nil {
			h.log.Warn("input not written", "id", id, "err", err)
			seq = 0 // the client's write fails
		}
		h.mu.Lock()
		cl.acks = append(cl.acks, [2]uint64{id, seq})
		h.broadcast()
		h.mu.Unlock()
	case 'c':
		h.closeStdin()
	case 'k':
		n, err := strconv.Atoi(string(arg))
		if err == nil && n > 0 {
			_ = syscall.Kill(-h.cmd.Process.Pid, syscall.Signal(n))
		}
	case 't':
		if seq, err := parseUint(arg); err == nil {
			h.mu.Lock()
			if err := h.j.trim(seq); err != nil {
				h.log.Warn("trim journal", "err", err)
			}
			h.mu.Unlock()
		}
	case 'q':
		h.mu.Lock()
		h.quit = true
		h.broadcast()
		h.mu.Unlock()
		h.closeStdin()
	default:
		return false
	}
	return true
}
