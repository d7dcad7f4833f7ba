package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/untether/untether/telegram/tgtest"
)

// TestProcessVoiceThroughAPI: the real bot downloads a voice note through
// getFile and the file URL, posts it to a fake transcription API on
// 127.0.0.1 (multipart, with the model and the key from $api_key_env),
// shows what it heard and runs it as the prompt.
func TestProcessVoiceThroughAPI(t *testing.T) {
	audio := []byte("OggS\x00\x02 a voice note's bytes")
	var mu sync.Mutex
	var got struct{ auth, model, name, data string }
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/transcriptions" {
			http.NotFound(w, r)
			return
		}
		_ = r.ParseMultipartForm(1 << 20)
		f, fh, err := r.FormFile("file")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		data, _ := io.ReadAll(f)
		mu.Lock()
		got.auth, got.model, got.name, got.data = r.Header.Get("Authorization"), r.FormValue("model"), fh.Filename, string(data)
		mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]string{"text": "Run the tests please."})
	}))
	defer api.Close()
	const key = "sk-voice-test-0123456789"
	env := append(fakeClaudeEnv("echo"), "UNTETHER_TEST_VOICE_KEY="+key)
	e := newE2E(t, testExecutable(t), env, `
[voice]
api_url = "`+api.URL+`/v1"
api_key_env = "UNTETHER_TEST_VOICE_KEY"
model = "whisper-1"
`)
	p := e.start(t)
	id := e.tg.SendVoice(e.user, e.chat, audio, 3)
	heard := e.tg.AwaitMessage(30*time.Second, e.chat.ID, func(m tgtest.Message) bool { return strings.HasPrefix(m.Text, "🎙 ") })
	e.tg.AwaitMessage(30*time.Second, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "echo: Run the tests please.") })
	if heard.ReplyTo != id || !strings.Contains(heard.Text, "Run the tests please.") {
		t.Errorf("heard %+v", heard)
	}
	mu.Lock()
	defer mu.Unlock()
	if got.auth != "Bearer "+key || got.model != "whisper-1" || !strings.HasSuffix(got.name, "voice.ogg") || got.data != string(audio) {
		t.Errorf("the API got %+v", got)
	}
	if len(e.tg.CallsTo("getFile")) != 1 || len(e.tg.CallsTo("download")) != 1 {
		t.Errorf("getFile %d, downloads %d", len(e.tg.CallsTo("getFile")), len(e.tg.CallsTo("download")))
	}
	if strings.Contains(p.out.String(), key) {
		t.Error("the API key is in the bot's log")
	}
}

// TestProcessVoiceThroughCommand: a local command gets the downloaded
// recording's path and its output is the prompt; a failing one shows its
// error and runs nothing.
func TestProcessVoiceThroughCommand(t *testing.T) {
	script := filepath.Join(t.TempDir(), "transcribe.sh")
	// The "transcript" is the recording itself: the bytes made it through.
	body := "#!/bin/sh\ncase \"$(cat \"$1\")\" in *fail*) echo 'model not loaded' >&2; exit 4;; esac\ncat \"$1\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	e := newE2E(t, testExecutable(t), fakeClaudeEnv("echo"), `
[voice]
command = ["`+script+`", "{file}"]
timeout = "20s"
`)
	e.start(t)
	e.tg.SendVoice(e.user, e.chat, []byte("Deploy the staging branch."), 2)
	e.tg.AwaitMessage(30*time.Second, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "echo: Deploy the staging branch.") })
	e.tg.SendVoice(e.user, e.chat, []byte("please fail"), 2)
	m := e.tg.AwaitMessage(30*time.Second, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "Could not transcribe") })
	if !answerHas(m, "exit status 4: model not loaded") || !answerHas(m, "Nothing was run") {
		t.Errorf("error %q", m.Text)
	}
	for _, msg := range e.tg.Messages(e.chat.ID) {
		if strings.Contains(msg.Text, "echo: please fail") {
			t.Error("a failed transcription ran")
		}
	}
}
