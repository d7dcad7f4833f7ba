package approvals

import (
	"encoding/json"
	"strings"
)

// DefaultAutoApprove returns the tools allowed without asking when the
// config has no [approvals] auto_approve: read-only tools and bookkeeping.
// The file tools among them are allowed only inside the session's scope
// (see Config.Paths). WebFetch is not here: a fetched URL can carry data
// out, so it is asked unless the owner lists it.
// A fresh slice each call, so callers may append to it.
func DefaultAutoApprove() []string {
	return []string{"Read", "Glob", "Grep", "LS", "WebSearch", "TodoWrite", "BashOutput"}
}

// MergeAllowList returns the union of the given lists (normally [claude]
// allowed_tools and [approvals] auto_approve) without blanks or duplicates,
// in first-seen order.
func MergeAllowList(lists ...[]string) []string {
	seen := make(map[string]bool)
	var out []string
	for _, l := range lists {
		for _, e := range l {
			e = strings.TrimSpace(e)
			if e == "" || seen[e] {
				continue
			}
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}

// rule is one parsed allow-list entry.
//
// Accepted forms (anything else never matches, so a typo cannot widen access):
//
//	Read                  the tool, whatever its input (for a file tool:
//	                      on paths inside the session's scope, see pathTools)
//	Bash(git status:*)    a Bash command that is "git status" or starts with "git status "
//	Bash(make test)       exactly the Bash command "make test"
//
// A prefix rule never matches a command that contains shell control
// characters (; & | < > ` $( or a newline): "git status; rm -rf ~" starts
// with "git status" but is not what the rule was written to allow.
// Rules with content for tools other than Bash are left to the CLI itself.
type rule struct {
	tool    string
	content string // empty: any input
	prefix  bool
}

func parseRule(s string) (rule, bool) {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open < 0 {
		return rule{tool: s}, s != ""
	}
	if !strings.HasSuffix(s, ")") || open == 0 {
		return rule{}, false
	}
	r := rule{tool: s[:open], content: strings.TrimSpace(s[open+1 : len(s)-1])}
	if r.tool != "Bash" || r.content == "" {
		return rule{}, false
	}
	if p, ok := strings.CutSuffix(r.content, ":*"); ok {
		r.content, r.prefix = strings.TrimSpace(p), true
		if r.content == "" {
			return rule{}, false
		}
	}
	return r, true
}

// match reports whether the rule allows tool with input.
func (r rule) match(tool string, input json.RawMessage) bool {
	if r.tool != tool {
		return false
	}
	if r.content == "" {
		return true
	}
	cmd, ok := bashCommand(input)
	if !ok {
		return false
	}
	if !r.prefix {
		return cmd == r.content
	}
	if strings.ContainsAny(cmd, ";&|<>`\n\r") || strings.Contains(cmd, "$(") {
		return false
	}
	rest, ok := strings.CutPrefix(cmd, r.content)
	return ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t')
}

func bashCommand(input json.RawMessage) (string, bool) {
	var in struct {
		Command *string `json:"command"`
	}
	if err := json.Unmarshal(input, &in); err != nil || in.Command == nil {
		return "", false
	}
	return strings.TrimSpace(*in.Command), true
}

// allowList is a parsed allow list.
type allowList []rule

func parseAllowList(entries []string) allowList {
	var l allowList
	for _, e := range entries {
		if r, ok := parseRule(e); ok {
			l = append(l, r)
		}
	}
	return l
}

func (l allowList) allows(tool string, input json.RawMessage) bool {
	for _, r := range l {
		if r.match(tool, input) {
			return true
		}
	}
	return false
}
