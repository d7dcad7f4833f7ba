// Package speak turns answers into voice notes: the text made for the ear
// (Script), two speech backends (an OpenAI-compatible API and a local
// command) that give OGG/Opus, the check that they did (Check), and the
// per-chat count of failures that turns automatic voice replies off for a
// while (Guard). Text in, OGG/Opus out; it knows no Telegram types.
package speak

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/untether/untether/human"
	"github.com/untether/untether/safefile"
)

// Speaker says text: OGG/Opus audio back.
type Speaker interface {
	Speak(ctx context.Context, text string) ([]byte, error)
}

// DefaultTimeout bounds one synthesis when no Timeout is set.
const DefaultTimeout = 2 * time.Minute

// MaxAudio bounds what a backend's audio is read up to: the Bot API takes
// files of up to 50 MB; 90 seconds of Opus are about 200 kB.
const MaxAudio = 50 << 20

// API is an OpenAI-compatible speech endpoint: POST {URL}/audio/speech,
// JSON {model, input, voice, response_format: "opus"}, the key as a Bearer
// token, the audio back.
type API struct {
	URL     string // the API's base URL, e.g. https://api.openai.com/v1
	Key     string // "" sends no Authorization (a local server)
	Model   string // e.g. gpt-4o-mini-tts, tts-1
	Voice   string // e.g. alloy
	Timeout time.Duration
	// Client defaults to one without a timeout of its own: Timeout bounds
	// each call.
	Client *http.Client
}

// Speak implements Speaker.
func (a *API) Speak(ctx context.Context, text string) ([]byte, error) {
	limit := timeoutOr(a.Timeout)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	body, err := json.Marshal(map[string]string{"model": a.Model, "input": text, "voice": a.Voice, "response_format": "opus"})
	if err != nil {
		return nil, fmt.Errorf("speech API: %w", err)
	}
	url := strings.TrimRight(a.URL, "/") + "/audio/speech"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("speech API: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if a.Key != "" {
		req.Header.Set("Authorization", "Bearer "+a.Key)
	}
	client := a.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("speech API: no answer within %v", limit)
		}
		return nil, fmt.Errorf("speech API: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxAudio+1))
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("speech API: the audio did not come within %v", limit)
	case err != nil:
		return nil, fmt.Errorf("speech API: reading the audio: %w", err)
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("speech API: HTTP %d: %s", resp.StatusCode, apiMessage(data))
	}
	return checked("speech API", data)
}

// apiMessage is the error an API answered with: its JSON error's message,
// else the body's start.
func apiMessage(data []byte) string {
	var out struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &out) == nil && out.Error != nil && out.Error.Message != "" {
		return human.Clip(out.Error.Message, 300)
	}
	return human.Clip(strings.TrimSpace(string(data)), 300)
}

// Command runs a local program that reads the text on its standard input
// and writes OGG/Opus to its standard output (espeak-ng piped through
// opusenc, Piper piped through opusenc).
type Command struct {
	Args    []string
	Timeout time.Duration
	// Env is the command's environment (nil: the bot's). The bot passes
	// its own without its secrets, as for the transcription command.
	Env []string
}

// Speak implements Speaker.
func (c *Command) Speak(ctx context.Context, text string) ([]byte, error) {
	if len(c.Args) == 0 {
		return nil, errors.New("speech command: none configured")
	}
	limit := timeoutOr(c.Timeout)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	name := filepath.Base(c.Args[0])
	cmd := exec.CommandContext(ctx, c.Args[0], c.Args[1:]...)
	cmd.Env = c.Env
	cmd.Stdin = strings.NewReader(text)
	// Its own process group, so a pipeline's programs end with it when the
	// time is up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	stdout := &safefile.Capped{Max: MaxAudio + 1}
	stderr := &safefile.Capped{Max: 8 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("speech command %s: stopped after %v", name, limit)
	case err != nil:
		if detail := strings.TrimSpace(stderr.String()); detail != "" {
			return nil, fmt.Errorf("speech command %s: %w: %s", name, err, human.ClipTail(detail, 300))
		}
		return nil, fmt.Errorf("speech command %s: %w", name, err)
	}
	return checked("speech command "+name, stdout.Bytes())
}

// checked refuses audio that is too big or not OGG/Opus.
func checked(who string, data []byte) ([]byte, error) {
	if len(data) > MaxAudio {
		return nil, fmt.Errorf("%s: the audio is over %d MB", who, MaxAudio>>20)
	}
	if _, err := Check(data); err != nil {
		return nil, fmt.Errorf("%s: %w (%d bytes)", who, err, len(data))
	}
	return data, nil
}

func timeoutOr(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultTimeout
	}
	return d
}
