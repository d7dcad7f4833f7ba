package tgtest

import (
	"encoding/binary"
	"errors"
	"strings"
	"time"
)

// sendVoice answers like Telegram: an uploaded recording (multipart) or the file_id of a known one, an
// optional duration in seconds, a caption, a reply and a keyboard like sendDocument. A voice note plays only
// as OGG/Opus: the fake keeps the bytes as sent (FileData), and a Voice whose MimeType is audio/ogg when they
// are OGG/Opus, "" otherwise, so a test sees a broken note for what it is (see OggOpus).
func (s *Server) sendVoice(c Call) (any, *apiError) {
	return s.sendMedia(c, func() (*media, *apiError) {
		v := strings.TrimSpace(c.Params["voice"])
		up, ok := c.Files["voice"]
		if !ok || v != "attach://"+up.Name {
			if f, known := s.files[v]; known {
				return &media{voice: &Voice{FileID: f.id, FileUniqueID: f.uniqueID, FileSize: f.size,
					Duration: int(c.Int64("duration"))}, caption: true}, nil
			}
			if v == "" || strings.HasPrefix(v, "attach://") {
				return nil, badRequest("there is no voice in the request")
			}
			return nil, badRequest("wrong file identifier/HTTP URL specified")
		}
		switch {
		case len(up.Data) == 0:
			return nil, badRequest("file must be non-empty")
		case len(up.Data) > MaxUpload:
			return nil, errBodyTooLarge
		}
		f := s.addFileLocked(up.Data, 0, "voice")
		voice := &Voice{FileID: f.id, FileUniqueID: f.uniqueID, FileSize: f.size, Duration: int(c.Int64("duration"))}
		if d, err := OggOpus(up.Data); err == nil {
			voice.MimeType = "audio/ogg"
			if voice.Duration == 0 { // Telegram reads the length from the file when the bot gives none
				voice.Duration = int((d + time.Second/2) / time.Second)
			}
		}
		return &media{voice: voice, caption: true}, nil
	})
}

// Voices are the bot's voice notes in a chat, oldest first; FileData has their bytes.
func (s *Server) Voices(chatID int64) []Message {
	return s.messagesWhere(chatID, func(m Message) bool { return m.Voice != nil })
}

// OggOpus reads data as Telegram's voice notes are made (an Ogg stream whose first packet is OpusHead,
// RFC 7845) and returns how long it plays: the last page's granule position, less the header's pre-skip,
// at 48 kHz.
func OggOpus(data []byte) (time.Duration, error) {
	var preSkip, granule uint64
	first := true
	for len(data) > 0 {
		if len(data) < 27 || string(data[:4]) != "OggS" {
			return 0, errors.New("not an Ogg page")
		}
		nsegs := int(data[26])
		if len(data) < 27+nsegs {
			return 0, errors.New("an Ogg page is cut short")
		}
		size := 0
		for _, l := range data[27 : 27+nsegs] {
			size += int(l)
		}
		body := data[27+nsegs:]
		if len(body) < size {
			return 0, errors.New("an Ogg page is cut short")
		}
		if first {
			if size < 19 || string(body[:8]) != "OpusHead" {
				return 0, errors.New("the stream is not Opus (no OpusHead)")
			}
			preSkip, first = uint64(binary.LittleEndian.Uint16(body[10:12])), false
		}
		if g := binary.LittleEndian.Uint64(data[6:14]); g != ^uint64(0) {
			granule = g
		}
		data = body[size:]
	}
	if first || granule <= preSkip {
		return 0, errors.New("no Opus audio")
	}
	return time.Duration(granule-preSkip) * time.Second / 48000, nil
}
