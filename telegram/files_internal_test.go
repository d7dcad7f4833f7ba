package telegram

import (
	"testing"

	"github.com/untether/untether/prefs"
)

func TestFileNames(t *testing.T) {
	for _, c := range []struct {
		msgID, i int
		f        prefs.File
		want     string
	}{
		{7, 0, prefs.File{Kind: "photo"}, "7-photo.jpg"},
		{7, 1, prefs.File{Kind: "document", Name: "report v2 (final).pdf"}, "7-1-report_v2__final_.pdf"},
		{8, 0, prefs.File{Kind: "document", Name: "../../.ssh/authorized_keys"}, "8-authorized_keys"},
		{8, 0, prefs.File{Kind: "document", Name: "..\\..\\win.ini"}, "8-win.ini"},
		{9, 0, prefs.File{Kind: "document", Name: ".bashrc"}, "9-bashrc"},
		{9, 0, prefs.File{Kind: "document", Name: "日本語.txt"}, "9-___.txt"},
		{9, 0, prefs.File{Kind: "document", Name: ""}, "9-file"},
	} {
		if got := fileName(c.msgID, c.i, c.f); got != c.want {
			t.Errorf("fileName(%d, %d, %q) = %q, want %q", c.msgID, c.i, c.f.Name, got, c.want)
		}
	}
}

func TestPublicAPI(t *testing.T) {
	for url, want := range map[string]bool{
		"":                          true,
		"https://api.telegram.org":  true,
		"https://API.Telegram.org/": true,
		"http://127.0.0.1:8081":     false,
		"https://tg.example.com":    false,
	} {
		b := &Bot{cfg: Config{APIURL: url}}
		if got := b.publicAPI(); got != want {
			t.Errorf("publicAPI(%q) = %v, want %v", url, got, want)
		}
	}
}
