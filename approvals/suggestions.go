package approvals

import (
	"bytes"
	"encoding/json"

	"github.com/untether/untether/engine"
)

// suggestion is the part of a permission_suggestions entry we can put into
// words. The entries themselves are sent back verbatim; this is only for
// telling the user what "Always allow" will do.
type suggestion struct {
	Type  string `json:"type"`
	Rules []struct {
		ToolName    string `json:"toolName"`
		RuleContent string `json:"ruleContent"`
	} `json:"rules"`
	Behavior    string   `json:"behavior"`
	Destination string   `json:"destination"`
	Mode        string   `json:"mode"`
	Directories []string `json:"directories"`
}

// DescribeSuggestions puts the permission suggestions into plain words: one
// line per rule, mode or directory, each starting with where it is saved,
// so that a line cut short still says that, e.g. "In this project's local
// settings, always allow Bash: npm run *" or "For this session, accept
// file edits". A suggestion it cannot put into words is given as its JSON,
// in full: every line together says everything Always allow would save.
func DescribeSuggestions(raw []json.RawMessage) []string {
	var out []string
	for _, r := range raw {
		var s suggestion
		if err := json.Unmarshal(r, &s); err != nil {
			out = append(out, unknownChange(r))
			continue
		}
		out = append(out, describeSuggestion(s, r)...)
	}
	return out
}

func describeSuggestion(s suggestion, raw json.RawMessage) []string {
	where := whereWords(s.Destination)
	var whats []string
	switch s.Type {
	case "addRules", "replaceRules", "removeRules":
		verb := behaviorWords(s.Behavior)
		switch s.Type {
		case "replaceRules":
			verb = "replace the earlier rules with: " + verb
		case "removeRules":
			verb = "remove the rule"
		}
		for _, r := range s.Rules {
			rule := r.ToolName
			if r.RuleContent != "" {
				rule += ": " + r.RuleContent
			}
			whats = append(whats, verb+" "+rule)
		}
		if len(s.Rules) == 0 {
			whats = append(whats, verb+" (no rules)")
		}
	case "setMode":
		whats = append(whats, modeWords(s.Mode))
	case "addDirectories", "removeDirectories":
		verb := "allow access to "
		if s.Type == "removeDirectories" {
			verb = "remove access to "
		}
		for _, d := range s.Directories {
			whats = append(whats, verb+d)
		}
		if len(s.Directories) == 0 {
			whats = append(whats, verb+"(no directories)")
		}
	default:
		return []string{unknownChange(raw)}
	}
	out := make([]string, len(whats))
	for i, w := range whats {
		out[i] = w
		if where != "" {
			out[i] = where + ", " + w
		}
	}
	return out
}

// unknownChange is a suggestion of a kind this version cannot put into
// words: its JSON, whole, so nothing of it is hidden.
func unknownChange(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return "apply a permission change: " + string(raw)
	}
	return "apply a permission change: " + buf.String()
}

func behaviorWords(b string) string {
	switch b {
	case "deny":
		return "always deny"
	case "ask":
		return "always ask before"
	}
	return "always allow"
}

func modeWords(m string) string {
	switch m {
	case engine.ModeAcceptEdits:
		return "accept file edits"
	case engine.ModeBypass:
		return "skip all permission prompts"
	case engine.ModePlan:
		return "switch to plan mode"
	case engine.ModeDefault:
		return "ask again as usual"
	case engine.ModeDontAsk:
		return "deny anything not already allowed"
	}
	return "switch to " + m + " mode"
}

// whereWords says where a change is kept, to start its line with.
func whereWords(dest string) string {
	switch dest {
	case "localSettings":
		return "In this project's local settings"
	case "projectSettings":
		return "In this project's shared settings"
	case "userSettings":
		return "In your user settings"
	case "session":
		return "For this session"
	case "cliArg":
		return "For this run"
	case "":
		return ""
	}
	return "In " + dest
}
