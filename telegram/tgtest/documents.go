package tgtest

import (
	"mime"
	"path/filepath"
	"strings"
)

// MaxCaptionLen is Telegram's limit on a caption's visible text, in UTF-16 code units.
const MaxCaptionLen = 1024

// sendDocument answers like Telegram: an uploaded file (multipart) or the file_id of a known file, a caption
// parsed like a text (at most MaxCaptionLen after parsing), a reply and a keyboard like sendMessage.
func (s *Server) sendDocument(c Call) (any, *apiError) {
	return s.sendMedia(c, func() (*media, *apiError) {
		doc, e := s.documentOf(c, c.Params["document"], "document")
		if e != nil {
			return nil, e
		}
		return &media{document: doc, caption: true}, nil
	})
}

// sendMedia stores the bot's message of a sendDocument or sendPhoto: attach finds its file, the rest is read
// like sendMessage's.
func (s *Server) sendMedia(c Call, attach func() (*media, *apiError)) (any, *apiError) {
	cs, e := s.resolveChat(c)
	if e != nil {
		return nil, e
	}
	md, e := attach()
	if e != nil {
		return nil, e
	}
	ct, e := s.parseCaption(c)
	if e != nil {
		return nil, e
	}
	return s.storeSent(cs, c, ct, md)
}

// documentOf finds the document a sendDocument call sends, storing an upload so getFile and FileData serve it.
// v is the parameter (or InputMedia's media), field the multipart part an upload must be in.
func (s *Server) documentOf(c Call, v, field string) (*Document, *apiError) {
	v = strings.TrimSpace(v)
	if up, ok := c.Files[field]; ok && v == "attach://"+up.Name {
		switch {
		case len(up.Data) == 0:
			return nil, badRequest("file must be non-empty")
		case len(up.Data) > MaxUpload:
			return nil, errBodyTooLarge
		}
		f := s.addFileLocked(up.Data, 0, "documents")
		mt, _, _ := mime.ParseMediaType(mime.TypeByExtension(filepath.Ext(up.Name)))
		if mt == "" {
			mt = "application/octet-stream"
		}
		return &Document{FileID: f.id, FileUniqueID: f.uniqueID, FileName: up.Name, MimeType: mt, FileSize: f.size}, nil
	}
	switch {
	case v == "" || strings.HasPrefix(v, "attach://"): // attach:// names a part that is not there
		return nil, badRequest("there is no document in the request")
	case strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://"):
		return nil, badRequest("failed to get HTTP URL content") // the fake fetches nothing
	}
	f, ok := s.files[v]
	if !ok {
		return nil, badRequest("wrong file identifier/HTTP URL specified")
	}
	return &Document{FileID: f.id, FileUniqueID: f.uniqueID, FileSize: f.size}, nil
}

// FileData returns the content of a file the server holds: one a user sent, or one the bot uploaded.
func (s *Server) FileData(fileID string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[fileID]
	if !ok {
		return nil, false
	}
	return f.data, true
}
