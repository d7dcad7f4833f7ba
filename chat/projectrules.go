package chat

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/engine"
)

// A project's own permission rules (docs/security.md, "Trust, fifth pass"):
// a cloned repository can allow tools in its settings, and the agent then
// runs them without asking, so the bot's approvals never see those calls.
// Before the bot starts an agent in a directory it asks the engine for
// such rules (engine.ProjectRules) and tells the conversation of those the
// owner did not save with Always allow, once per set and directory.

// projectRulesWait bounds the reading of a project's settings before a
// start (they are the project's files, possibly on another machine).
const projectRulesWait = 10 * time.Second

// NoteProjectRules: the project's own settings let the agent act without
// asking: Rules, in the files they are in, apply in Dir from this start on.
type NoteProjectRules struct {
	Dir   string
	Rules []engine.ProjectRule
}

func (NoteProjectRules) note() {}

// tellProjectRules notes, before an agent starts in dir on m, the rules of
// the project that act unasked and that the owner did not save, unless the
// conversation was told of this very set there before.
func (a *session) tellProjectRules(ctx context.Context, m *Machine, dir string, replyTo int) {
	b := a.c
	pr, ok := m.Engine.(engine.ProjectRules)
	if !ok {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, projectRulesWait)
	defer cancel()
	// A file that could not be read comes back as an Unread rule and is
	// told like the others: the agent may apply what the bot cannot see.
	rules, err := pr.ProjectRules(rctx, dir)
	if err != nil {
		b.log.Warn("could not read all of the project's permission rules", "chat_id", a.place.ChatID, "dir", dir, "err", err)
	}
	own, err := b.store.OwnRules(m.Name, dir)
	if err != nil {
		b.log.Warn("could not read the rules saved with Always allow", "chat_id", a.place.ChatID, "dir", dir, "err", err)
	}
	rules = slices.DeleteFunc(rules, func(r engine.ProjectRule) bool { return !r.Unread && slices.Contains(own, ownRule(r.Rule, r.Dir)) })
	if len(rules) == 0 {
		return
	}
	first, err := b.store.TellRulesOnce(a.key, m.Name, dir, rulesDigest(rules))
	if err != nil {
		b.log.Warn("could not remember the project's rules told", "chat_id", a.place.ChatID, "dir", dir, "err", err)
	}
	if first || err != nil {
		b.log.Info("the project's own settings allow tools unasked", "chat_id", a.place.ChatID, "dir", dir, "rules", len(rules))
		b.note(a.key, a.place, replyTo, NoteProjectRules{Dir: dir, Rules: rules})
	}
}

// rulesDigest names a set of rules, whatever their order.
func rulesDigest(rules []engine.ProjectRule) string {
	lines := make([]string, len(rules))
	for i, r := range rules {
		what := ownRule(r.Rule, r.Dir)
		if r.Unread {
			what = "unread:"
		}
		lines[i] = what + "\x00" + r.File
	}
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:])
}

// ownRule is how a rule is remembered: a directory apart from a tool rule.
func ownRule(rule string, dir bool) string {
	if dir {
		return "dir:" + rule
	}
	return "rule:" + rule
}

// rememberOwnRules keeps the rules an Always allow press saved into the
// project's settings (its suggestions sent back as updatedPermissions to
// localSettings or projectSettings), so a later start does not show the
// owner's own answers as the project's.
func (c *Core) rememberOwnRules(res approvals.Result) {
	if res.Outcome != approvals.OutcomeAlways || res.Request.WorkDir == "" {
		return
	}
	var rules []string
	for _, raw := range res.Request.Suggestions {
		var s struct {
			Type        string `json:"type"`
			Behavior    string `json:"behavior"`
			Destination string `json:"destination"`
			Rules       []struct {
				ToolName    string `json:"toolName"`
				RuleContent string `json:"ruleContent"`
			} `json:"rules"`
			Directories []string `json:"directories"`
		}
		if json.Unmarshal(raw, &s) != nil || (s.Destination != "localSettings" && s.Destination != "projectSettings") {
			continue
		}
		switch s.Type {
		case "addRules", "replaceRules":
			if s.Behavior != "allow" {
				continue
			}
			for _, r := range s.Rules {
				rule := r.ToolName
				if r.RuleContent != "" {
					rule += "(" + r.RuleContent + ")"
				}
				rules = append(rules, ownRule(rule, false))
			}
		case "addDirectories":
			for _, d := range s.Directories {
				rules = append(rules, ownRule(d, true))
			}
		}
	}
	if len(rules) == 0 {
		return
	}
	m := c.MachineFor(res.Request.SessionKey)
	if err := c.store.AddOwnRules(m.Name, res.Request.WorkDir, rules); err != nil {
		c.log.Warn("could not remember the rules saved with Always allow", "chat_id", res.Request.ChatID, "err", err)
	}
}
