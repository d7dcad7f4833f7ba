package codex_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/untether/untether/codex/codextest"
	"github.com/untether/untether/engine"
)

// outsideRig is a rig whose model runs `cat PATH` for "read: PATH" and
// calls view_image for "view: PATH", with a secret in a fake HOME outside
// the project.
func outsideRig(t *testing.T) (*rig, string) {
	t.Helper()
	home := t.TempDir()
	secret := filepath.Join(home, ".ssh", "id_ed25519")
	if err := os.MkdirAll(filepath.Dir(secret), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("TOPSECRET-KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, func(req codextest.Request) codextest.Reply {
		if out, ok := req.CallOutput(); ok {
			return codextest.Reply{Text: "done: " + out}
		}
		text := req.LastUserText()
		if p, ok := strings.CutPrefix(text, "read: "); ok {
			return codextest.Reply{Command: "cat " + p}
		}
		if p, ok := strings.CutPrefix(text, "view: "); ok {
			args, _ := json.Marshal(map[string]string{"path": p})
			return codextest.Reply{Call: &codextest.Call{Name: "view_image", Arguments: string(args)}}
		}
		return codextest.Reply{Text: "?"}
	})
	r.eng.Base.Env = append(r.eng.Base.Env, "HOME="+home)
	return r, secret
}

// leaked reports whether any request to the model carried the secret.
func leaked(r *rig) bool {
	for _, req := range r.api.Requests() {
		if req.Carries("TOPSECRET") {
			return true
		}
	}
	return false
}

// In the bot's default mode (approvalPolicy "untrusted") Codex 0.171.0
// asks before every command, also one it knows only reads: `cat` of a key
// in the home folder is asked, and denied, nothing of it reaches the model.
func TestReadOutsideIsAsked(t *testing.T) {
	r, secret := outsideRig(t)
	c := r.start(t, "")
	send(t, c, "read: "+secret)
	var seen []engine.Event
	req := next[engine.ApprovalRequest](t, c, &seen)
	var in struct{ Command string }
	if err := json.Unmarshal(req.Input, &in); err != nil || in.Command != "cat "+secret {
		t.Fatalf("approval request = %+v, input %s", req, req.Input)
	}
	if err := c.Deny(context.Background(), req.RequestID, "no", false); err != nil {
		t.Fatal(err)
	}
	next[engine.TurnCompleted](t, c, &seen)
	if leaked(r) {
		t.Error("the secret reached the model")
	}
}

// view_image is never asked (measured), but it hands on only what decodes
// as an image: a key file gives the model an error, not its content.
func TestViewImageOfATextFileSendsNothing(t *testing.T) {
	r, secret := outsideRig(t)
	c := r.start(t, "")
	send(t, c, "view: "+secret)
	var seen []engine.Event
	tc := next[engine.TurnCompleted](t, c, &seen)
	for _, ev := range seen {
		if _, ok := ev.(engine.ApprovalRequest); ok {
			t.Errorf("view_image was asked: %+v", ev)
		}
	}
	if leaked(r) || !strings.Contains(tc.Result, "unable to process image") {
		t.Errorf("leaked %v; turn = %+v", leaked(r), tc)
	}
}
