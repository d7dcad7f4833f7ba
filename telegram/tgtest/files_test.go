package tgtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func download(t *testing.T, s *Server, token, path string) (int, []byte) {
	t.Helper()
	res, err := http.Get(s.URL() + "/file/bot" + token + "/" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, b
}

func TestPhotoAndDocumentDownload(t *testing.T) {
	s := New(t, WithChats(PrivateChat(alice)))
	png := bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 100)
	s.SendPhoto(alice, PrivateChat(alice), png, "what is wrong here? /start")
	s.SendDocument(alice, PrivateChat(alice), "app.log", "text/plain", []byte("line 1\nline 2\n"), "")

	a := callJSON(t, s, "getUpdates", map[string]any{"timeout": 0})
	var ups []struct {
		Message wireMessage `json:"message"`
	}
	if err := json.Unmarshal(a.Result, &ups); err != nil || len(ups) != 2 {
		t.Fatalf("updates %s: %v", a.Result, err)
	}
	photo := ups[0].Message
	if photo.Text != "" || photo.Caption != "what is wrong here? /start" || len(photo.Photo) != 2 {
		t.Fatalf("photo message %+v", photo)
	}
	if len(photo.CaptionEntities) != 1 || photo.CaptionEntities[0].Type != "bot_command" {
		t.Errorf("caption entities %+v", photo.CaptionEntities)
	}
	doc := ups[1].Message.Document
	if doc == nil || doc.FileName != "app.log" || doc.MimeType != "text/plain" || doc.FileSize != 14 {
		t.Fatalf("document %+v", doc)
	}

	for _, c := range []struct {
		id   string
		want []byte
	}{{photo.Photo[1].FileID, png}, {doc.FileID, []byte("line 1\nline 2\n")}} {
		a := callJSON(t, s, "getFile", map[string]any{"file_id": c.id})
		var f struct {
			FilePath string `json:"file_path"`
			FileSize int    `json:"file_size"`
		}
		if err := json.Unmarshal(a.Result, &f); err != nil || f.FilePath == "" || f.FileSize != len(c.want) {
			t.Fatalf("getFile %s: %+v %v", c.id, a, err)
		}
		if code, body := download(t, s, s.Token(), f.FilePath); code != 200 || !bytes.Equal(body, c.want) {
			t.Errorf("download %s: %d, %d bytes", f.FilePath, code, len(body))
		}
		if code, _ := download(t, s, "1:wrong", f.FilePath); code != 404 {
			t.Errorf("download with a wrong token: %d", code)
		}
	}
	if a := callJSON(t, s, "getFile", map[string]any{"file_id": "nope"}); a.OK || !strings.Contains(a.Description, "invalid file_id") {
		t.Errorf("unknown file: %+v", a)
	}
}

func TestFileOverDownloadLimit(t *testing.T) {
	s := New(t, WithChats(PrivateChat(alice)))
	s.SendDocument(alice, PrivateChat(alice), "big.iso", "application/octet-stream", []byte("x"), "", FileSize(MaxDownload+1))
	a := callJSON(t, s, "getUpdates", map[string]any{"timeout": 0})
	var ups []struct {
		Message wireMessage `json:"message"`
	}
	if err := json.Unmarshal(a.Result, &ups); err != nil || len(ups) != 1 || ups[0].Message.Document == nil {
		t.Fatalf("updates %s: %v", a.Result, err)
	}
	d := ups[0].Message.Document
	if d.FileSize != MaxDownload+1 {
		t.Errorf("reported size %d", d.FileSize)
	}
	if a := callJSON(t, s, "getFile", map[string]any{"file_id": d.FileID}); a.OK || a.Description != "Bad Request: file is too big" {
		t.Errorf("getFile of a big file: %+v", a)
	}
}
