// Package voice turns recordings into text for the bot: voice notes, audio
// files and video notes become prompts. Two backends: an OpenAI-compatible
// transcription API (OpenAI, Groq, a local whisper server) and a local
// command (whisper.cpp's whisper-cli, or a script around it). Audio in (a
// file on disk), text out; it knows no Telegram types.
package voice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/untether/untether/human"
	"github.com/untether/untether/safefile"
)

// Transcriber turns the recording at path into text.
type Transcriber interface {
	Transcribe(ctx context.Context, path string) (string, error)
}

// DefaultTimeout bounds one transcription when no Timeout is set.
const DefaultTimeout = 2 * time.Minute

// maxText bounds what a backend's answer is read up to: a transcript of
// an hour is far less.
const maxText = 1 << 20

// API is an OpenAI-compatible transcription endpoint: POST
// {URL}/audio/transcriptions, multipart with the file and the model, the
// key as a Bearer token, JSON {"text": ...} back.
type API struct {
	URL     string // the API's base URL, e.g. https://api.openai.com/v1
	Key     string // "" sends no Authorization (a local server)
	Model   string // e.g. whisper-1, whisper-large-v3
	Timeout time.Duration
	// Client defaults to one without a timeout of its own: Timeout bounds
	// each call.
	Client *http.Client
}

// Transcribe implements Transcriber.
func (a *API) Transcribe(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeoutOr(a.Timeout))
	defer cancel()
	audio, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading the recording: %w", err)
	}
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("model", a.Model)
	_ = w.WriteField("response_format", "json")
	// The API tells the format by the file's name: keep its extension.
	part, err := w.CreateFormFile("file", filepath.Base(path))
	if err != nil {
		return "", fmt.Errorf("building the request: %w", err)
	}
	_, _ = part.Write(audio)
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("building the request: %w", err)
	}
	url := strings.TrimRight(a.URL, "/") + "/audio/transcriptions"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, &body)
	if err != nil {
		return "", fmt.Errorf("transcription API: %w", err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
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
			return "", fmt.Errorf("transcription API: no answer within %v", timeoutOr(a.Timeout))
		}
		return "", fmt.Errorf("transcription API: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxText))
	if err != nil {
		return "", fmt.Errorf("transcription API: reading the answer: %w", err)
	}
	var out struct {
		Text  *string `json:"text"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	jsonErr := json.Unmarshal(data, &out)
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(data))
		if jsonErr == nil && out.Error != nil && out.Error.Message != "" {
			msg = out.Error.Message
		}
		return "", fmt.Errorf("transcription API: HTTP %d: %s", resp.StatusCode, human.Clip(msg, 300))
	}
	if jsonErr != nil || out.Text == nil {
		return "", fmt.Errorf("transcription API: the answer has no text: %s", human.Clip(string(data), 200))
	}
	return strings.TrimSpace(*out.Text), nil
}

// Command runs a local program: Args with every "{file}" replaced by the
// recording's path; its standard output is the text.
type Command struct {
	Args    []string
	Timeout time.Duration
	// Env is the command's environment (nil: the bot's). The bot passes
	// its own without its secrets: the command runs as the bot's user, so
	// a command Claude runs could read them in /proc/<pid>/environ.
	Env []string
}

// Placeholder stands for the recording's path in Command.Args.
const Placeholder = "{file}"

// Transcribe implements Transcriber.
func (c *Command) Transcribe(ctx context.Context, path string) (string, error) {
	if len(c.Args) == 0 {
		return "", errors.New("transcription command: none configured")
	}
	limit := timeoutOr(c.Timeout)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = strings.ReplaceAll(a, Placeholder, path)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = c.Env
	// Its own process group, so a script's children (ffmpeg, whisper-cli)
	// end with it when the time is up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr safefile.Capped
	stdout.Max, stderr.Max = maxText, 8<<10
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("transcription command %s: stopped after %v", filepath.Base(args[0]), limit)
	case err != nil:
		detail := strings.TrimSpace(stderr.String())
		if detail == "" {
			detail = strings.TrimSpace(stdout.String())
		}
		if detail != "" {
			return "", fmt.Errorf("transcription command %s: %w: %s", filepath.Base(args[0]), err, human.ClipTail(detail, 300))
		}
		return "", fmt.Errorf("transcription command %s: %w", filepath.Base(args[0]), err)
	}
	return strings.TrimSpace(stdout.String()), nil
}

func timeoutOr(d time.Duration) time.Duration {
	if d <= 0 {
		return DefaultTimeout
	}
	return d
}
