package tgtest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MaxDownload is the largest file a bot may download through getFile (20 MB).
const MaxDownload = 20 << 20

// storedFile is a file a user sent, as getFile and the download URL serve it.
type storedFile struct {
	id, uniqueID, path string
	data               []byte
	size               int // as reported; may exceed len(data) (see FileSize)
}

// PhotoSize and Document are the Bot API objects of a sent photo or file.
type PhotoSize struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	FileSize     int    `json:"file_size,omitempty"`
}

type Document struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int    `json:"file_size,omitempty"`
}

// Voice, Audio and VideoNote are the Bot API objects of a user's recordings.
type Voice struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Duration     int    `json:"duration"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int    `json:"file_size,omitempty"`
}

type Audio struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Duration     int    `json:"duration"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int    `json:"file_size,omitempty"`
}

type VideoNote struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Length       int    `json:"length"`
	Duration     int    `json:"duration"`
	FileSize     int    `json:"file_size,omitempty"`
}

// media is what a user message carries besides text.
type media struct {
	photo     []PhotoSize
	voice     *Voice
	audio     *Audio
	videoNote *VideoNote
	document  *Document
	caption   bool   // the message's text is a caption
	album     string // media_group_id
}

// FileSize makes a sent file report size bytes (its content stays what was
// given): lets tests send a file over MaxDownload without allocating one.
func FileSize(size int) MessageOption { return func(m *userMessage) { m.size = size } }

// InAlbum marks a photo or file as part of an album (media_group_id):
// Telegram delivers an album as one message per item, the caption on one.
func InAlbum(id string) MessageOption { return func(m *userMessage) { m.album = id } }

// SendPhoto has from send a photo (data, e.g. a PNG) with an optional caption.
// Like Telegram, the message carries the photo in two sizes, a thumbnail
// first; getFile serves data for the largest. It returns the message id.
func (s *Server) SendPhoto(from User, chat Chat, data []byte, caption string, opts ...MessageOption) int {
	s.tb.Helper()
	return s.userMessage(from, chat, caption, opts, func(um *userMessage) media {
		thumb := s.addFileLocked(data[:min(len(data), 64)], 0, "thumbnails")
		full := s.addFileLocked(data, um.size, "photos")
		return media{caption: true, photo: []PhotoSize{
			{FileID: thumb.id, FileUniqueID: thumb.uniqueID, Width: 90, Height: 60, FileSize: thumb.size},
			{FileID: full.id, FileUniqueID: full.uniqueID, Width: 1280, Height: 853, FileSize: full.size},
		}}
	})
}

// SendDocument has from send a file named name with an optional caption.
func (s *Server) SendDocument(from User, chat Chat, name, mime string, data []byte, caption string, opts ...MessageOption) int {
	s.tb.Helper()
	return s.userMessage(from, chat, caption, opts, func(um *userMessage) media {
		f := s.addFileLocked(data, um.size, "documents")
		return media{caption: true, document: &Document{FileID: f.id, FileUniqueID: f.uniqueID, FileName: name,
			MimeType: mime, FileSize: f.size}}
	})
}

// SendVoice has from send a voice note (OGG/Opus data) of the given length
// in seconds; getFile serves data. It returns the message id.
func (s *Server) SendVoice(from User, chat Chat, data []byte, seconds int, opts ...MessageOption) int {
	s.tb.Helper()
	return s.userMessage(from, chat, "", opts, func(um *userMessage) media {
		f := s.addFileLocked(data, um.size, "voice")
		return media{voice: &Voice{FileID: f.id, FileUniqueID: f.uniqueID, Duration: seconds, MimeType: "audio/ogg", FileSize: f.size}}
	})
}

// SendAudio has from send an audio file named name, with an optional caption.
func (s *Server) SendAudio(from User, chat Chat, name, mime string, data []byte, seconds int, caption string, opts ...MessageOption) int {
	s.tb.Helper()
	return s.userMessage(from, chat, caption, opts, func(um *userMessage) media {
		f := s.addFileLocked(data, um.size, "music")
		return media{caption: true, audio: &Audio{FileID: f.id, FileUniqueID: f.uniqueID, Duration: seconds, FileName: name,
			MimeType: mime, FileSize: f.size}}
	})
}

// SendVideoNote has from send a round video message (MP4 data).
func (s *Server) SendVideoNote(from User, chat Chat, data []byte, seconds int, opts ...MessageOption) int {
	s.tb.Helper()
	return s.userMessage(from, chat, "", opts, func(um *userMessage) media {
		f := s.addFileLocked(data, um.size, "video_notes")
		return media{videoNote: &VideoNote{FileID: f.id, FileUniqueID: f.uniqueID, Length: 240, Duration: seconds, FileSize: f.size}}
	})
}

func (s *Server) addFileLocked(data []byte, size int, dir string) *storedFile {
	if s.files == nil {
		s.files = map[string]*storedFile{}
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	f := &storedFile{id: "AgAD" + hex.EncodeToString(b[:]), uniqueID: "AQAD" + hex.EncodeToString(b[:6]),
		data: data, size: len(data)}
	if size > 0 {
		f.size = size
	}
	f.path = dir + "/file_" + strconv.Itoa(len(s.files)) + ".bin"
	s.files[f.id] = f
	return f
}

// LocalMode makes getFile behave like a self-hosted Bot API server started
// with --local: files are written under dir and file_path is their absolute
// path there (no download URL, no 20 MB limit).
func (s *Server) LocalMode(dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.localDir = dir
}

// getFile answers like Telegram: the file's path for the download URL, or
// an error for an unknown id or a file over MaxDownload.
func (s *Server) getFile(c Call) (any, *apiError) {
	f, ok := s.files[strings.TrimSpace(c.Params["file_id"])]
	switch {
	case c.Params["file_id"] == "":
		return nil, badRequest("file_id not specified")
	case !ok:
		return nil, badRequest("invalid file_id")
	case s.localDir != "":
		p := filepath.Join(s.localDir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return nil, &apiError{code: 500, description: "Internal Server Error: " + err.Error()}
		}
		if err := os.WriteFile(p, f.data, 0o600); err != nil {
			return nil, &apiError{code: 500, description: "Internal Server Error: " + err.Error()}
		}
		return map[string]any{"file_id": f.id, "file_unique_id": f.uniqueID, "file_size": f.size, "file_path": p}, nil
	case f.size > MaxDownload:
		return nil, badRequest("file is too big")
	}
	return map[string]any{"file_id": f.id, "file_unique_id": f.uniqueID, "file_size": f.size, "file_path": f.path}, nil
}

// serveFile answers GET /file/bot<token>/<file_path>.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, rest string) {
	token, path, _ := strings.Cut(rest, "/")
	s.mu.Lock()
	var f *storedFile
	if token == s.token {
		for _, x := range s.files {
			if x.path == path {
				f = x
			}
		}
	}
	s.calls = append(s.calls, Call{Method: "download", Time: s.now(), Status: statusOf(f),
		Params: map[string]string{"file_path": path}})
	s.mu.Unlock()
	if f == nil || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", fmt.Sprint(len(f.data)))
	_, _ = w.Write(f.data)
}

func statusOf(f *storedFile) int {
	if f == nil {
		return http.StatusNotFound
	}
	return http.StatusOK
}
