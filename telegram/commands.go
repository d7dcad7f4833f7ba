package telegram

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/render"
	"github.com/untether/untether/telegram/view"
)

// chatSettings are the effective per-chat values and where each comes from.
type chatSettings struct {
	Model, ModelSource   string
	PlanMode, PlanSource string
	Verbose              bool
	VerboseSource        string
	PermissionMode       string // the mode a new process starts in
	PermissionSource     string
	WorkDir, WorkSource  string
}

const (
	fromChat   = "chat setting"
	fromConfig = "config"
)

func (b *Bot) settings(key string) chatSettings {
	s := chatSettings{Model: b.cfg.Model, ModelSource: fromConfig, PlanMode: b.cfg.PlanMode, PlanSource: fromConfig,
		VerboseSource: fromConfig, WorkDir: b.cfg.WorkDir, WorkSource: fromConfig}
	p, err := b.store.Prefs(key)
	if err != nil {
		b.log.Warn("could not read chat settings", "session_key", key, "err", err)
	}
	if p.Model != "" {
		s.Model, s.ModelSource = p.Model, fromChat
	}
	if p.PlanMode != prefs.PlanUnset {
		s.PlanMode, s.PlanSource = string(p.PlanMode), fromChat
	}
	if p.Verbose != nil {
		s.Verbose, s.VerboseSource = *p.Verbose, fromChat
	}
	if p.WorkDir != "" {
		s.WorkDir, s.WorkSource = p.WorkDir, fromChat
	}
	s.PermissionMode, s.PermissionSource = startMode(s.PlanMode, b.cfg.PermissionMode), s.PlanSource
	return s
}

// startMode is the permission mode implied by the plan-mode setting.
func startMode(planMode, configured string) string {
	switch planMode {
	case "on", "auto":
		return "plan"
	}
	if configured == "plan" {
		return "default" // plan mode off overrides a configured plan mode
	}
	return configured
}

// route runs a slash command; commands never wait behind a turn. /cancel
// runs at once on the poll loop: it never waits, and it must reach a
// session whose lane is stuck (it cancels the lane's running job too).
// Every other command runs in its session's lane, since many wait for
// Claude or the disk, and must stall only their own chat.
func (b *Bot) route(key string, pl place, m *models.Message, cmd, args string) {
	if cmd == "cancel" {
		stuck := b.lanes.cancelRunning(key)
		if a := b.existingActor(key); a != nil && a.requestCancel() || stuck {
			b.notify(pl, m.ID, "Cancelling the running turn… The session stays; queued messages still run.")
		} else {
			b.notify(pl, m.ID, "Nothing is running.")
		}
		return
	}
	b.lanes.run(key, func(ctx context.Context) { b.command(ctx, key, pl, m, cmd, args) })
}

// command runs a slash command other than /cancel, in the session's lane.
func (b *Bot) command(ctx context.Context, key string, pl place, m *models.Message, cmd, args string) {
	group := isGroup(m.Chat)
	reply := func(text string) { b.notify(pl, m.ID, text) }
	switch cmd {
	case "start", "help":
		reply(view.HelpText(group, b.me.Username))
	case "new":
		a := b.actorFor(key, pl, group)
		dropped := a.requestReset()
		msg := "Fresh start: your next message begins a new Claude session."
		if dropped > 0 {
			msg += fmt.Sprintf(" (%d queued message(s) dropped.)", dropped)
		}
		reply(msg)
	case "status":
		reply(b.statusText(key))
	case "planmode":
		reply(b.planModeCommand(ctx, key, pl, group, strings.ToLower(args)))
	case "model":
		reply(b.modelCommand(key, args))
	case "verbose":
		reply(b.verboseCommand(key, strings.ToLower(args)))
	case "cwd", "cd":
		reply(b.cwdCommand(key, args))
	case "sessions", "resume":
		b.sessionsCommand(ctx, key, pl, m.ID)
	default:
		reply(fmt.Sprintf("Unknown command /%s. %s", render.Escape(cmd), "Send /help for the list."))
	}
}

func (b *Bot) statusText(key string) string {
	st := b.settings(key)
	s := view.Status{Model: st.Model, ModelSource: st.ModelSource, PlanMode: st.PlanMode, PlanModeSource: st.PlanSource,
		Verbose: st.Verbose, VerboseSource: st.VerboseSource, PermissionMode: st.PermissionMode, WorkDir: st.WorkDir, WorkDirSource: st.WorkSource}
	if rec, ok, err := b.store.Session(key); err == nil && ok {
		s.SessionID = rec.SessionID
	}
	var err error
	if s.ChatCostUSD, err = b.store.Cost(key); err != nil {
		b.log.Warn("could not read the chat's cost", "session_key", key, "err", err)
	}
	if s.SpentToday, err = b.store.Spend(time.Now()); err != nil {
		b.log.Warn("could not read today's spend", "session_key", key, "err", err)
	}
	s.DailyBudget = b.cfg.DailyBudget
	if a := b.existingActor(key); a != nil {
		as := a.status()
		s.Queued, s.Running, s.Live = as.Queued, as.Running, as.Live
		if as.Mode != "" {
			s.PermissionMode = as.Mode
		}
		if as.Model != "" {
			s.Model = as.Model
		}
		if as.Session != "" {
			s.SessionID = as.Session
		}
	}
	return view.StatusText(s)
}

func (b *Bot) planModeCommand(ctx context.Context, key string, pl place, group bool, arg string) string {
	var err error
	switch arg {
	case "", "show":
		st := b.settings(key)
		return fmt.Sprintf("Plan mode: <b>%s</b> (%s).", st.PlanMode, st.PlanSource)
	case "on", "off", "auto":
		err = b.store.SetPlanMode(key, prefs.PlanMode(arg))
	case "clear":
		err = b.store.SetPlanMode(key, prefs.PlanUnset)
	default:
		return "Usage: /planmode on | off | auto | show | clear"
	}
	if err != nil {
		return "Could not save the setting: " + render.Escape(b.redact(err.Error()))
	}
	st := b.settings(key)
	msg := fmt.Sprintf("Plan mode: <b>%s</b> (%s).", st.PlanMode, st.PlanSource)
	if a := b.existingActor(key); a != nil {
		if conn := a.liveConn(); conn != nil {
			mode := st.PermissionMode
			if mode == "" {
				mode = "default" // no mode configured; the CLI refuses an empty one
			}
			if err := conn.SetPermissionMode(ctx, mode); err != nil {
				return msg + " It applies when the session next starts (" + render.Escape(err.Error()) + ")."
			}
			return msg + " Applied to the running session."
		}
	}
	return msg + " It applies when the session next starts."
}

func (b *Bot) modelCommand(key, arg string) string {
	var err error
	switch {
	case arg == "" || arg == "show":
		st := b.settings(key)
		if st.Model == "" {
			return "Model: the Claude Code default (config)."
		}
		return fmt.Sprintf("Model: <b>%s</b> (%s).", render.Escape(st.Model), st.ModelSource)
	case arg == "clear":
		err = b.store.SetModel(key, "")
	case strings.ContainsAny(arg, " \t\n") || len(arg) > 100:
		return "Usage: /model <name> | show | clear"
	default:
		err = b.store.SetModel(key, arg)
	}
	if err != nil {
		return "Could not save the setting: " + render.Escape(b.redact(err.Error()))
	}
	if a := b.existingActor(key); a != nil && a.liveConn() != nil {
		a.restartAfterTurn()
	}
	st := b.settings(key)
	name := st.Model
	if name == "" {
		name = "the Claude Code default"
	}
	return fmt.Sprintf("Model: <b>%s</b> (%s). It applies from your next message; the conversation continues.", render.Escape(name), st.ModelSource)
}

func (b *Bot) verboseCommand(key, arg string) string {
	var err error
	switch arg {
	case "on":
		err = b.store.SetVerbose(key, new(true))
	case "off":
		err = b.store.SetVerbose(key, new(false))
	case "clear":
		err = b.store.SetVerbose(key, nil)
	case "", "show":
	default:
		return "Usage: /verbose on | off"
	}
	if err != nil {
		return "Could not save the setting: " + render.Escape(b.redact(err.Error()))
	}
	st := b.settings(key)
	state := "off"
	if st.Verbose {
		state = "on"
	}
	return fmt.Sprintf("Verbose progress: <b>%s</b> (%s).", state, st.VerboseSource)
}
