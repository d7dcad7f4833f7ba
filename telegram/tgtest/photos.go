package tgtest

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	_ "image/gif" // registered for image.DecodeConfig
	_ "image/jpeg"
	"image/png"
	"strconv"
	"strings"
)

// MaxPhoto is the largest photo a bot may upload (10 MB); larger images go as documents.
const MaxPhoto = 10 << 20

// MaxAlbum is how many items an album (sendMediaGroup) holds.
const MaxAlbum = 10

// sendPhoto answers like Telegram: an uploaded image (multipart) or the file_id of a known photo, with the
// checks Telegram's servers make on an image: at most MaxPhoto, readable as an image, width plus height at
// most 10000 and a side ratio at most 20. The caption, reply and keyboard are read like sendDocument's.
func (s *Server) sendPhoto(c Call) (any, *apiError) {
	return s.sendMedia(c, func() (*media, *apiError) {
		sizes, e := s.photoOf(c, c.Params["photo"], "photo")
		if e != nil {
			return nil, e
		}
		return &media{photo: sizes, caption: true}, nil
	})
}

// photoOf finds the photo a call sends (v the parameter or InputMedia's media, field the multipart part an
// upload must be in), storing an upload so getFile and FileData serve it.
func (s *Server) photoOf(c Call, v, field string) ([]PhotoSize, *apiError) {
	v = strings.TrimSpace(v)
	if up, ok := c.Files[field]; ok && v == "attach://"+up.Name {
		switch {
		case len(up.Data) == 0:
			return nil, badRequest("file must be non-empty")
		case len(up.Data) > MaxPhoto:
			// Telegram's servers refuse to save a photo over 10 MB (the MTProto error bots see).
			return nil, badRequest("PHOTO_SAVE_FILE_INVALID")
		}
		w, h, ok := imageSize(up.Data)
		switch {
		case !ok:
			return nil, badRequest("IMAGE_PROCESS_FAILED")
		case w+h > 10000 || w > 20*h || h > 20*w:
			return nil, badRequest("PHOTO_INVALID_DIMENSIONS")
		}
		// Telegram keeps a thumbnail and the photo; the fake keeps the bytes as sent for the largest size.
		thumb := s.addFileLocked(up.Data[:min(len(up.Data), 64)], 0, "thumbnails")
		full := s.addFileLocked(up.Data, 0, "photos")
		tw, th := thumbSize(w, h)
		return []PhotoSize{
			{FileID: thumb.id, FileUniqueID: thumb.uniqueID, Width: tw, Height: th, FileSize: thumb.size},
			{FileID: full.id, FileUniqueID: full.uniqueID, Width: w, Height: h, FileSize: full.size},
		}, nil
	}
	switch {
	case v == "" || strings.HasPrefix(v, "attach://"):
		return nil, badRequest("there is no photo in the request")
	case strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://"):
		return nil, badRequest("failed to get HTTP URL content") // the fake fetches nothing
	}
	f, ok := s.files[v]
	if !ok {
		return nil, badRequest("wrong file identifier/HTTP URL specified")
	}
	return []PhotoSize{{FileID: f.id, FileUniqueID: f.uniqueID, Width: 1280, Height: 853, FileSize: f.size}}, nil
}

// thumbSize scales w×h to fit 90 pixels, as Telegram's smallest size.
func thumbSize(w, h int) (int, int) {
	if w <= 90 && h <= 90 {
		return w, h
	}
	if w >= h {
		return 90, max(1, h*90/w)
	}
	return max(1, w*90/h), 90
}

// imageSize reads the dimensions of a PNG, JPEG, GIF or WebP image from its header.
func imageSize(data []byte) (w, h int, ok bool) {
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		return cfg.Width, cfg.Height, cfg.Width > 0 && cfg.Height > 0
	}
	return webpSize(data)
}

// webpSize reads a WebP header (RIFF....WEBP, then a VP8, VP8L or VP8X chunk).
func webpSize(b []byte) (w, h int, ok bool) {
	if len(b) < 30 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
		return 0, 0, false
	}
	switch string(b[12:16]) {
	case "VP8 ": // lossy: a key frame's start code, then 14-bit sizes
		if b[23] != 0x9d || b[24] != 0x01 || b[25] != 0x2a {
			return 0, 0, false
		}
		w = int(binary.LittleEndian.Uint16(b[26:28]) & 0x3fff)
		h = int(binary.LittleEndian.Uint16(b[28:30]) & 0x3fff)
	case "VP8L": // lossless: a signature byte, then 14-bit sizes minus one
		if b[20] != 0x2f {
			return 0, 0, false
		}
		bits := binary.LittleEndian.Uint32(b[21:25])
		w, h = int(bits&0x3fff)+1, int(bits>>14&0x3fff)+1
	case "VP8X": // extended: 24-bit sizes minus one
		w = int(b[24]) | int(b[25])<<8 | int(b[26])<<16 + 1
		h = int(b[27]) | int(b[28])<<8 | int(b[29])<<16 + 1
	default:
		return 0, 0, false
	}
	return w, h, w > 0 && h > 0
}

// inputMedia is one item of sendMediaGroup's media.
type inputMedia struct {
	Type            string          `json:"type"`
	Media           string          `json:"media"`
	Caption         string          `json:"caption"`
	ParseMode       string          `json:"parse_mode"`
	CaptionEntities json.RawMessage `json:"caption_entities"`
}

// sendMediaGroup answers like Telegram: 1 to MaxAlbum photos or documents (documents only with documents),
// each item's file and caption checked as sendPhoto and sendDocument check theirs, before anything is sent.
// The messages share a media_group_id (a single item is sent as a plain message) and the reply; the answer
// is the array of messages.
func (s *Server) sendMediaGroup(c Call) (any, *apiError) {
	cs, e := s.resolveChat(c)
	if e != nil {
		return nil, e
	}
	var items []inputMedia
	if err := json.Unmarshal([]byte(c.Params["media"]), &items); err != nil {
		return nil, badRequest("can't parse media JSON object")
	}
	switch {
	case len(items) == 0:
		return nil, badRequest("there are no messages to send")
	case len(items) > MaxAlbum:
		return nil, badRequest("too many messages to send as an album")
	}
	type prepared struct {
		md *media
		ct content
	}
	var out []prepared
	var docs, others int
	for _, it := range items {
		field := strings.TrimPrefix(strings.TrimSpace(it.Media), "attach://")
		if strings.HasPrefix(it.Media, "attach://") {
			if _, ok := c.Files[field]; !ok {
				return nil, badRequest("can't parse InputMedia: media not found")
			}
		}
		ct, e := s.parseRich(it.Caption, it.ParseMode, string(it.CaptionEntities), MaxCaptionLen, "message caption is too long")
		if e != nil {
			return nil, e
		}
		md := &media{caption: true}
		switch it.Type {
		case "photo":
			others++
			if md.photo, e = s.photoOf(c, it.Media, field); e != nil {
				return nil, e
			}
		case "document":
			docs++
			if md.document, e = s.documentOf(c, it.Media, field); e != nil {
				return nil, e
			}
		case "video", "audio":
			return nil, badRequest("tgtest: %s albums are not supported by the fake", it.Type)
		default:
			return nil, badRequest("can't parse InputMedia: unsupported media type %q", it.Type)
		}
		out = append(out, prepared{md: md, ct: ct})
	}
	if docs > 0 && others > 0 {
		return nil, badRequest("document can't be mixed with other media types")
	}
	// Checked before anything is stored: a refused album sends nothing.
	if _, e := replyTarget(cs, c); e != nil {
		return nil, e
	}
	album := ""
	if len(out) > 1 {
		s.albums++
		album = strconv.FormatInt(13_900_000_000_000_000+s.albums, 10)
	}
	msgs := make([]any, 0, len(out))
	for _, p := range out {
		p.md.album = album
		w, e := s.storeSent(cs, c, p.ct, p.md)
		if e != nil {
			return nil, e
		}
		msgs = append(msgs, w)
	}
	return msgs, nil
}

// PNG returns a w×h gray PNG image, for tests that send pictures.
func PNG(w, h int) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		panic(err) // encoding into memory does not fail
	}
	return b.Bytes()
}

// PNGHeader is the start of a PNG of w×h: enough for its size to be read
// (by sendPhoto's checks), without encoding the pixels of a huge image.
func PNGHeader(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32([]byte("IHDR"), w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 0, 0, 0, 0) // 8-bit gray
	out := append([]byte("\x89PNG\r\n\x1a\n"), 0, 0, 0, 13)
	out = append(out, ihdr...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(ihdr))
}

// FileID is the file of a photo (its largest size) or document message, "" for a text.
func (m Message) FileID() string {
	switch {
	case len(m.Photo) > 0:
		return m.Photo[len(m.Photo)-1].FileID
	case m.Document != nil:
		return m.Document.FileID
	}
	return ""
}

// Photos and Documents are the bot's photo and document messages in a chat, oldest first.
func (s *Server) Photos(chatID int64) []Message {
	return s.messagesWhere(chatID, func(m Message) bool { return len(m.Photo) > 0 })
}

func (s *Server) Documents(chatID int64) []Message {
	return s.messagesWhere(chatID, func(m Message) bool { return m.Document != nil })
}

func (s *Server) messagesWhere(chatID int64, pred func(Message) bool) []Message {
	var out []Message
	for _, m := range s.Messages(chatID) {
		if pred(m) {
			out = append(out, m)
		}
	}
	return out
}
