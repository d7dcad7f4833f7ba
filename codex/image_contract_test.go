package codex_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/untether/untether/codex/codextest"
	"github.com/untether/untether/engine"
)

// onePixelPNG is a 1×1 PNG, as a photo the bot downloaded.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

// An image the prompt names by path (how the bot passes a photo: saved in
// the chat's upload folder, outside the project) reaches the model through
// Codex's view_image tool: the model calls it with the path, and the next
// request carries the picture as an input_image.
func TestImageReachesTheModelThroughViewImage(t *testing.T) {
	uploads := filepath.Join(t.TempDir(), "uploads")
	if err := os.MkdirAll(uploads, 0o700); err != nil {
		t.Fatal(err)
	}
	pic := filepath.Join(uploads, "photo.png")
	png, _ := base64.StdEncoding.DecodeString(onePixelPNG)
	if err := os.WriteFile(pic, png, 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, func(req codextest.Request) codextest.Reply {
		if out, ok := req.CallOutput(); ok {
			return codextest.Reply{Text: "saw: " + out}
		}
		if p, ok := strings.CutPrefix(req.LastUserText(), "look: "); ok {
			args, _ := json.Marshal(map[string]string{"path": p})
			return codextest.Reply{Call: &codextest.Call{Name: "view_image", Arguments: string(args)}}
		}
		return codextest.Reply{Text: "?"}
	})
	c := r.start(t, "")
	send(t, c, "look: "+pic)
	var seen []engine.Event
	tc := next[engine.TurnCompleted](t, c, &seen)
	reqs := r.api.Requests()
	if len(reqs) != 2 || !reqs[0].HasTool("view_image") {
		t.Fatalf("%d requests, the first offering view_image: %v", len(reqs), len(reqs) > 0 && reqs[0].HasTool("view_image"))
	}
	// The call's output is the picture itself, as a data URL.
	if !reqs[1].Carries(`"type":"function_call_output"`) || !reqs[1].Carries(`"type":"input_image"`) ||
		!reqs[1].Carries("data:image/png;base64,"+onePixelPNG) {
		t.Errorf("the request after view_image does not carry the image: %s", reqs[1].Input[len(reqs[1].Input)-1])
	}
	// Measured: Codex does not ask before view_image reads a file outside
	// the project, and reports no item the bot shows as an action.
	for _, ev := range seen {
		switch ev.(type) {
		case engine.ApprovalRequest, engine.ActionStarted:
			t.Errorf("unexpected %T %+v", ev, ev)
		}
	}
	if tc.Outcome != engine.OutcomeDone {
		t.Errorf("turn = %+v", tc)
	}
}
