package voice

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// recording writes a fake recording and returns its path.
func recording(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAPI: the request is what OpenAI's API takes (POST
// /audio/transcriptions, Bearer key, multipart file named with its
// extension and the model) and the JSON answer's text comes back.
func TestAPI(t *testing.T) {
	audio := []byte("OggS\x00fake opus bytes")
	var got struct {
		method, path, auth, model, name string
		file                            []byte
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.method, got.path, got.auth = r.Method, r.URL.Path, r.Header.Get("Authorization")
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			t.Errorf("multipart: %v", err)
		}
		got.model = r.FormValue("model")
		if f, fh, err := r.FormFile("file"); err == nil {
			got.name = fh.Filename
			got.file, _ = io.ReadAll(f)
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"text": " Make the build green. \n"})
	}))
	defer srv.Close()
	a := &API{URL: srv.URL + "/v1/", Key: "sk-test-key", Model: "whisper-1"}
	text, err := a.Transcribe(context.Background(), recording(t, "voice.ogg", audio))
	if err != nil {
		t.Fatal(err)
	}
	if text != "Make the build green." {
		t.Errorf("text %q", text)
	}
	if got.method != "POST" || got.path != "/v1/audio/transcriptions" || got.auth != "Bearer sk-test-key" ||
		got.model != "whisper-1" || got.name != "voice.ogg" || string(got.file) != string(audio) {
		t.Errorf("request %+v", got)
	}
}

// An API error names the status and the API's message; an answer without
// text is an error too.
func TestAPIErrors(t *testing.T) {
	for _, c := range []struct {
		status int
		body   string
		want   string
	}{
		{401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`, "HTTP 401: Incorrect API key provided"},
		{500, `upstream down`, "HTTP 500: upstream down"},
		{200, `{"segments":[]}`, "the answer has no text"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(c.status)
			_, _ = io.WriteString(w, c.body)
		}))
		_, err := (&API{URL: srv.URL, Model: "m"}).Transcribe(context.Background(), recording(t, "a.ogg", []byte("x")))
		srv.Close()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d: err %v, want %q", c.status, err, c.want)
		}
	}
}

// script writes an executable shell script.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "transcribe.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCommand: {file} is replaced by the recording's path (also inside an
// argument) and stdout, trimmed, is the text.
func TestCommand(t *testing.T) {
	sh := script(t, `[ "$1" = "--in=$2" ] || { echo "bad args: $*" >&2; exit 2; }
printf '  heard %s bytes\n\n' "$(wc -c < "$2" | tr -d ' ')"`)
	path := recording(t, "voice.ogg", []byte("12345"))
	text, err := (&Command{Args: []string{sh, "--in={file}", "{file}"}}).Transcribe(context.Background(), path)
	if err != nil || text != "heard 5 bytes" {
		t.Errorf("text %q, err %v", text, err)
	}
}

// A failing command's error carries its stderr; one over its time limit
// is stopped (with its children, which hold its output open: without the
// process group the run would wait for them).
func TestCommandErrors(t *testing.T) {
	path := recording(t, "voice.ogg", []byte("x"))
	_, err := (&Command{Args: []string{script(t, "echo 'model file not found' >&2; exit 3")}}).Transcribe(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "exit status 3: model file not found") {
		t.Errorf("err %v", err)
	}
	_, err = (&Command{Args: []string{"/nonexistent/whisper-cli", "{file}"}}).Transcribe(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing binary: %v", err)
	}
	_, err = (&Command{Args: []string{script(t, "sleep 60 & wait"), "{file}"}, Timeout: 200 * time.Millisecond}).Transcribe(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "stopped after 200ms") {
		t.Errorf("err %v", err)
	}
}
