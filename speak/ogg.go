package speak

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// ErrNotOpus: what a backend gave is not OGG/Opus, the one format
// Telegram's sendVoice plays as a voice note. Such audio is refused, never
// sent: it would arrive as a broken note.
var ErrNotOpus = errors.New("not OGG/Opus audio")

// opusRate is the rate Ogg Opus granule positions count in, whatever
// rate the audio was made at (RFC 7845, section 4).
const opusRate = 48000

// Check reads data as an Ogg Opus stream (RFC 3533 pages, RFC 7845 Opus
// mapping) and returns how long it plays: the last page's granule
// position less the pre-skip, at 48 kHz. Anything else is ErrNotOpus.
func Check(data []byte) (time.Duration, error) {
	var preSkip uint64
	var last uint64
	pages := 0
	for off := 0; off < len(data); {
		h, err := pageAt(data, off)
		if err != nil {
			return 0, fmt.Errorf("%w: page %d: %v", ErrNotOpus, pages, err)
		}
		if pages == 0 {
			// The first page holds the identification header alone.
			if h.bodyLen < 19 || !bytes.HasPrefix(data[h.body:], []byte("OpusHead")) {
				return 0, fmt.Errorf("%w: the first packet is not OpusHead", ErrNotOpus)
			}
			preSkip = uint64(binary.LittleEndian.Uint16(data[h.body+10:]))
		}
		if h.granule != ^uint64(0) { // -1: no packet ends on this page
			last = h.granule
		}
		pages++
		off = h.body + h.bodyLen
	}
	if pages == 0 {
		return 0, fmt.Errorf("%w: empty", ErrNotOpus)
	}
	if last <= preSkip {
		return 0, fmt.Errorf("%w: no audio after the headers", ErrNotOpus)
	}
	return time.Duration((last - preSkip) * uint64(time.Second) / opusRate), nil
}

// page is where one Ogg page's body lies, and its granule position.
type page struct {
	body, bodyLen int
	granule       uint64
}

// pageAt reads the page header at off: "OggS", version 0, the granule
// position at byte 6, the segment table after byte 27.
func pageAt(data []byte, off int) (page, error) {
	const fixed = 27
	if len(data)-off < fixed {
		return page{}, errors.New("truncated header")
	}
	hdr := data[off:]
	if string(hdr[:4]) != "OggS" || hdr[4] != 0 {
		return page{}, errors.New("no OggS capture pattern")
	}
	segs := int(hdr[26])
	if len(hdr) < fixed+segs {
		return page{}, errors.New("truncated segment table")
	}
	n := 0
	for _, s := range hdr[fixed : fixed+segs] {
		n += int(s)
	}
	p := page{body: off + fixed + segs, bodyLen: n, granule: binary.LittleEndian.Uint64(hdr[6:14])}
	if p.body+n > len(data) {
		return page{}, errors.New("truncated body")
	}
	return p, nil
}
