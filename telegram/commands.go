package telegram

import (
	"context"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/view"
)

// route runs a slash command; commands never wait behind a turn. /cancel
// runs at once on the poll loop: it never waits, and it must reach a
// session whose lane is stuck (it cancels the lane's running job too).
// Every other command runs in its session's lane, since many wait for
// Claude or the disk, and must stall only their own chat.
func (b *Bot) route(key string, pl place, m *models.Message, cmd, args string) {
	if cmd == "cancel" {
		stuck := b.lanes.cancelRunning(key)
		a := b.existingActor(key)
		b.notify(pl, m.ID, view.CancelReply(a != nil && a.requestCancel() || stuck))
		return
	}
	b.lanes.run(key, func(ctx context.Context) { b.command(ctx, key, pl, m, cmd, args) })
}

// command runs a slash command other than /cancel, in the session's lane.
func (b *Bot) command(ctx context.Context, key string, pl place, m *models.Message, cmd, args string) {
	group := isGroup(m.Chat.ID)
	reply := func(text string) { b.notify(pl, m.ID, text) }
	switch cmd {
	case "start", "help":
		reply(view.HelpText(group, b.me.Username))
	case "new":
		a := b.actorFor(key, pl, group)
		reply(view.NewSessionReply(a.requestReset()))
	case "status":
		reply(b.statusText(key, pl, m.ID))
	case "usage":
		reply(b.usageText(key))
	case "planmode":
		reply(b.planModeCommand(ctx, key, pl, group, strings.ToLower(args)))
	case "model":
		reply(b.modelCommand(key, args))
	case "verbose":
		reply(b.verboseCommand(key, strings.ToLower(args)))
	case "stream":
		reply(b.streamCommand(key, group, strings.ToLower(args)))
	case "cwd", "cd":
		reply(b.cwdCommand(key, pl, m.ID, args))
	case "sessions", "resume":
		b.sessionsCommand(ctx, key, pl, m.ID)
	case "get":
		b.getCommand(ctx, key, pl, m.ID, args)
	case "diff":
		b.diffCommand(ctx, key, pl, m.ID, args)
	case "branch":
		reply(b.branchCommand(ctx, key, pl, m.ID, args))
	default: // botCommands and this switch name the same commands
		reply(view.UnknownCommand(cmd))
	}
}

// statusText shows the directory as checked (chatDir), not a stored one
// that no longer passes.
func (b *Bot) statusText(key string, pl place, replyTo int) string {
	b.chatDir(key, pl, replyTo)
	st := b.settings(key)
	s := view.Status{Model: st.Model, ModelSource: st.ModelSource, PlanMode: st.PlanMode, PlanModeSource: st.PlanSource,
		Verbose: st.Verbose, VerboseSource: st.VerboseSource, PermissionMode: st.PermissionMode, WorkDir: st.WorkDir, WorkDirSource: st.WorkSource,
		Stream: st.Stream, StreamSource: st.StreamSource, Version: b.cfg.Version, ClaudeVersion: b.cfg.ClaudeVersion}
	deskDir := st.WorkDir
	if rec, ok, err := b.store.Session(key); err == nil && ok {
		s.SessionID = rec.SessionID
		if rec.WorkDir != "" {
			deskDir = rec.WorkDir // the session belongs to the directory it started in
		}
	}
	b.statusMoney(key, &s)
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
		if as.Dir != "" {
			deskDir = as.Dir
		}
	}
	s.Desk = deskCommand(s.SessionID, deskDir)
	return view.StatusText(s)
}

func (b *Bot) planModeCommand(ctx context.Context, key string, pl place, group bool, arg string) string {
	var err error
	switch arg {
	case "", "show":
		st := b.settings(key)
		return view.PlanModeShow(st.PlanMode, st.PlanSource)
	case "on", "off", "auto":
		err = b.store.SetPlanMode(key, prefs.PlanMode(arg))
	case "clear":
		err = b.store.SetPlanMode(key, prefs.PlanUnset)
	default:
		return view.UsagePlanMode
	}
	if err != nil {
		return view.SettingNotSaved(b.redact(err.Error()))
	}
	st := b.settings(key)
	if a := b.existingActor(key); a != nil {
		if conn := a.liveConn(); conn != nil {
			if err := conn.SetPermissionMode(ctx, st.liveMode()); err != nil {
				return view.PlanModeSet(st.PlanMode, st.PlanSource, true, err.Error())
			}
			return view.PlanModeSet(st.PlanMode, st.PlanSource, true, "")
		}
	}
	return view.PlanModeSet(st.PlanMode, st.PlanSource, false, "")
}

func (b *Bot) modelCommand(key, arg string) string {
	var err error
	switch {
	case arg == "" || arg == "show":
		st := b.settings(key)
		return view.ModelShow(st.Model, st.ModelSource)
	case arg == "clear":
		err = b.store.SetModel(key, "")
	case strings.ContainsAny(arg, " \t\n") || len(arg) > 100:
		return view.UsageModel
	default:
		err = b.store.SetModel(key, arg)
	}
	if err != nil {
		return view.SettingNotSaved(b.redact(err.Error()))
	}
	if a := b.existingActor(key); a != nil && a.liveConn() != nil {
		a.restartAfterTurn()
	}
	st := b.settings(key)
	return view.ModelSet(st.Model, st.ModelSource)
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
		return view.UsageVerbose
	}
	if err != nil {
		return view.SettingNotSaved(b.redact(err.Error()))
	}
	st := b.settings(key)
	return view.VerboseShow(st.Verbose, st.VerboseSource)
}

// streamCommand is /stream: how this chat sees Claude's text as it is
// written. Turning streaming on or off restarts the Claude process after
// the running turn (resuming): the CLI sends partial text only when asked
// at start.
func (b *Bot) streamCommand(key string, group bool, arg string) string {
	before := b.settings(key).Stream
	var err error
	switch {
	case arg == "" || arg == "show":
		st := b.settings(key)
		return view.StreamShow(st.Stream, st.StreamSource, group)
	case arg == "clear":
		err = b.store.SetStream(key, "")
	case view.ValidStream(arg):
		err = b.store.SetStream(key, arg)
	default:
		return view.UsageStream
	}
	if err != nil {
		return view.SettingNotSaved(b.redact(err.Error()))
	}
	st := b.settings(key)
	if a := b.existingActor(key); a != nil && a.liveConn() != nil && (before == view.StreamOff) != (st.Stream == view.StreamOff) {
		a.restartAfterTurn()
	}
	return view.StreamSet(st.Stream, st.StreamSource, group)
}
