package view

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/untether/untether/approvals"
)

// alwaysReq is a Bash request with the given permission suggestions.
func alwaysReq(t *testing.T, cmd string, suggestions ...string) approvals.Request {
	t.Helper()
	in, err := json.Marshal(map[string]string{"command": cmd, "description": "Build"})
	if err != nil {
		t.Fatal(err)
	}
	req := approvals.Request{RequestID: "r1", ToolName: "Bash", Input: in, ChatID: chatID, SessionKey: "42",
		PermissionMode: "default", WorkDir: workDir}
	for _, s := range suggestions {
		req.Suggestions = append(req.Suggestions, json.RawMessage(s))
	}
	return req
}

// TestAlwaysAllowCutNeedsTheFile: what Always allow saves is part of what
// the owner approves. The real CLI's suggestion for a long curl, npm run
// and node (one addRules with three rules, to localSettings, measured with
// 2.1.330) cannot be shown whole; so every line starts with where it is
// saved, the prompt says it is cut, and the file before it holds every
// line in full. Before, the prompt showed only the cut curl rule, never
// "npm run *" nor where it was saved, and it counted as complete: no file.
func TestAlwaysAllowCutNeedsTheFile(t *testing.T) {
	curl := "curl -s https://docs.example.com/" + strings.Repeat("a", 220)
	cmd := curl + " && npm run build && node scripts/x.js"
	sugg := `{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"` + curl + `"},{"toolName":"Bash","ruleContent":"npm run *"},` +
		`{"toolName":"Bash","ruleContent":"node scripts/x.js"}],"behavior":"allow","destination":"localSettings"}`
	p, _, now := submit(t, alwaysReq(t, cmd, sugg))

	plain := PromptText(p, workDir, now)[0]
	for _, want := range []string{"Not all that Always allow saves is shown here",
		"• In this project's local settings, always allow Bash: curl -s", "always allow Bash: npm run *", "always allow Bash: node scripts/x.js"} {
		if !strings.Contains(plain, want) {
			t.Errorf("prompt lacks %q:\n%s", want, plain)
		}
	}
	if strings.Count(plain, "In this project's local settings") != 3 {
		t.Errorf("every line must say where it is saved:\n%s", plain)
	}
	f := PromptFullInput(p, workDir, now)
	if f == nil {
		t.Fatal("no file, although the Always allow lines are cut")
	}
	if f.Name != "input.txt" || f.Command || !f.AlwaysCut || f.InputCut {
		t.Errorf("file %s: command %v, always cut %v, input cut %v", f.Name, f.Command, f.AlwaysCut, f.InputCut)
	}
	for _, want := range []string{"── command ──\n" + cmd + "\n", "── Always allow will ──\n",
		"• In this project's local settings, always allow Bash: " + curl + "\n",
		"• In this project's local settings, always allow Bash: npm run *\n",
		"• In this project's local settings, always allow Bash: node scripts/x.js\n"} {
		if !strings.Contains(f.Text, want) {
			t.Errorf("file lacks %q:\n%s", want, f.Text)
		}
	}
	if c := FullInputCaption(f); !strings.Contains(c, "everything Always allow saves") {
		t.Errorf("caption: %s", c)
	}

	sent := PromptTextAttached(p, workDir, now, Attached{File: f, Sent: true})[0]
	checkParts(t, "sent", []string{sent})
	if !strings.Contains(sent, "What Always allow saves is too long to show here.") || !strings.Contains(sent, "<code>input.txt</code> above") {
		t.Errorf("prompt after the file:\n%s", sent)
	}
	if kb := PromptKeyboardAttached(p, "a:", Attached{File: f, Sent: true}); len(kb) != 2 {
		t.Errorf("keyboard after the file: %v", kb)
	}
	// Not delivered: the input is all in the prompt, so Approve stays;
	// Always allow, whose lines could not be read, goes.
	failed := PromptTextAttached(p, workDir, now, Attached{File: f})[0]
	if !strings.Contains(failed, "could not be sent") || !strings.Contains(failed, "Always allow is not offered") {
		t.Errorf("prompt without the file:\n%s", failed)
	}
	kb := PromptKeyboardAttached(p, "a:", Attached{File: f})
	if len(kb) != 1 || len(kb[0]) != 2 || kb[0][0].Text != LabelApprove || kb[0][1].Text != LabelDeny {
		t.Errorf("keyboard without the file = %v, want Approve and Deny", kb)
	}
}

// TestAlwaysAllowLeftOutNeedsTheFile: lines beyond the prompt's limit, or
// folded onto one line, make the prompt cut; the file has them. Before, a
// change past the sixth (here: skip every permission prompt, saved to the
// user settings) was only "… 1 more change", with no file.
func TestAlwaysAllowLeftOutNeedsTheFile(t *testing.T) {
	var many []string
	for i := range 8 {
		many = append(many, `{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"ls`+strings.Repeat("x", i)+`"}],"behavior":"allow","destination":"session"}`)
	}
	many = append(many, `{"type":"setMode","mode":"bypassPermissions","destination":"userSettings"}`)
	folded := `{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"make\nrm -rf ~"}],"behavior":"allow","destination":"session"}`
	for name, sugg := range map[string][]string{"nine changes": many, "a rule over two lines": {folded}} {
		p, _, now := submit(t, alwaysReq(t, "ls", sugg...))
		if text := PromptText(p, workDir, now)[0]; !strings.Contains(text, "Not all that Always allow saves is shown here") {
			t.Errorf("%s: the prompt does not say it is cut:\n%s", name, text)
		}
		f := PromptFullInput(p, workDir, now)
		if f == nil {
			t.Errorf("%s: no file", name)
			continue
		}
		for _, l := range p.AlwaysAllow {
			if !strings.Contains(f.Text, "• "+l+"\n") {
				t.Errorf("%s: file lacks %q:\n%s", name, l, f.Text)
			}
		}
	}
	p, _, now := submit(t, alwaysReq(t, "ls", many[0], many[8]))
	if f := PromptFullInput(p, workDir, now); f != nil {
		t.Errorf("two short changes need no file:\n%s", f.Text)
	}
	if text := PromptText(p, workDir, now)[0]; !strings.Contains(text, "In your user settings, skip all permission prompts") {
		t.Errorf("prompt:\n%s", text)
	}
}
