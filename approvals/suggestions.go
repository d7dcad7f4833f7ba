package approvals

import (
	"encoding/json"
	"strings"
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

// DescribeSuggestions puts each permission suggestion into plain words, one
// line each, e.g. "always allow Bash: touch a.txt (saved to this project's
// local settings)" or "accept file edits for the rest of this session".
func DescribeSuggestions(raw []json.RawMessage) []string {
	var out []string
	for _, r := range raw {
		var s suggestion
		if err := json.Unmarshal(r, &s); err != nil {
			out = append(out, "apply a permission change")
			continue
		}
		out = append(out, describeSuggestion(s))
	}
	return out
}

func describeSuggestion(s suggestion) string {
	switch s.Type {
	case "addRules", "replaceRules":
		line := behaviorWords(s.Behavior) + " " + rulesWords(s)
		if s.Type == "replaceRules" {
			line += ", replacing earlier rules"
		}
		return line + savedWhere(s.Destination)
	case "removeRules":
		return "remove the rule " + rulesWords(s) + savedWhere(s.Destination)
	case "setMode":
		return modeWords(s.Mode) + sessionOrSaved(s.Destination, " for the rest of this session")
	case "addDirectories":
		return "allow access to " + dirsWords(s.Directories) + sessionOrSaved(s.Destination, " this session")
	case "removeDirectories":
		return "remove access to " + dirsWords(s.Directories) + sessionOrSaved(s.Destination, " this session")
	}
	if s.Type == "" {
		return "apply a permission change"
	}
	return "apply a permission change (" + s.Type + ")"
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

func rulesWords(s suggestion) string {
	var parts []string
	for _, r := range s.Rules {
		if r.RuleContent == "" {
			parts = append(parts, r.ToolName)
		} else {
			parts = append(parts, r.ToolName+": "+r.RuleContent)
		}
	}
	if len(parts) == 0 {
		return "(no rules)"
	}
	return strings.Join(parts, "; ")
}

func modeWords(m string) string {
	switch m {
	case "acceptEdits":
		return "accept file edits"
	case "bypassPermissions":
		return "skip all permission prompts"
	case "plan":
		return "switch to plan mode"
	case "default":
		return "ask again as usual"
	case "dontAsk":
		return "deny anything not already allowed"
	}
	return "switch to " + m + " mode"
}

func dirsWords(d []string) string {
	if len(d) == 0 {
		return "(no directories)"
	}
	return strings.Join(d, ", ")
}

// sessionOrSaved uses the given session wording for the "session"
// destination and savedWhere for the others.
func sessionOrSaved(dest, session string) string {
	if dest == "session" || dest == "" {
		return session
	}
	return savedWhere(dest)
}

func savedWhere(dest string) string {
	switch dest {
	case "localSettings":
		return " (saved to this project's local settings)"
	case "projectSettings":
		return " (saved to this project's shared settings)"
	case "userSettings":
		return " (saved to your user settings)"
	case "session":
		return " (for this session)"
	case "cliArg":
		return " (for this run)"
	case "":
		return ""
	}
	return " (saved to " + dest + ")"
}
