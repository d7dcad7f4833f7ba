package telegram

import (
	"context"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/control"
	"github.com/untether/untether/telegram/engines"
	"github.com/untether/untether/telegram/view"
	"github.com/untether/untether/telegram/weblink"
)

// The bot's own commands: view.BotCommands lists them (names, aliases
// and every text about them); commandHandlers says what each does. A new
// command is an entry in each (the tests check they match).

// commandCall is one use of a command.
type commandCall struct {
	key   string
	pl    place
	m     *models.Message
	args  string
	group bool
}

// commandHandler is what one of the bot's commands does.
type commandHandler struct {
	// atOnce runs it on the poll loop, not in the session's lane: /cancel
	// never waits, and must reach a session whose lane is stuck.
	atOnce bool
	// run gets ctx from the lane (context.Background for atOnce).
	run func(b *Bot, ctx context.Context, c commandCall)
}

// commandHandlers maps each name of view.BotCommands to its handler.
var commandHandlers = map[string]commandHandler{
	"start": {run: helpCommand},
	"help":  {run: helpCommand},
	"cancel": {atOnce: true, run: func(b *Bot, _ context.Context, c commandCall) {
		// One reply, edited to the outcome once the turn has ended (notice.go).
		stuck := b.lanes.cancelRunning(c.key)
		n := b.api.newNotice(c.pl, c.m.ID)
		cancelled := b.core.Cancel(c.key, func(v chat.TurnSurface) { v.(*tgTurn).addNotice(n, cancelOutcome) })
		n.start(view.CancelReply(cancelled || stuck))
	}},
	"new": {run: func(b *Bot, _ context.Context, c commandCall) {
		n := b.api.newNotice(c.pl, c.m.ID)
		n.start(view.NewSessionReply(b.core.Reset(c.key, c.pl, func(v chat.TurnSurface) { v.(*tgTurn).addNotice(n, leaveNotice) })))
	}},
	"btw": {run: func(b *Bot, _ context.Context, c commandCall) { // the lane only starts it (control/asides.go)
		if !b.asides.Go(c.key, func(ctx context.Context) {
			control.Aside{Core: b.core, Out: controlOut{b}, Log: b.log}.Ask(ctx, c.key, c.pl, c.m.ID, c.args)
		}) {
			b.answer(c, view.AsideBusy)
		}
	}},
	"export": {run: func(b *Bot, ctx context.Context, c commandCall) {
		control.Export{Log: b.transcript, Out: controlOut{b}, Lg: b.log}.Send(ctx, c.key, c.pl, c.m.ID, c.args)
	}},
	"steer": {run: func(b *Bot, ctx context.Context, c commandCall) {
		control.Steer{Core: b.core, Out: controlOut{b}, Log: b.log}.Command(ctx, c.key, c.pl, c.m.ID, c.args)
	}},
	"status": {run: func(b *Bot, _ context.Context, c commandCall) { b.answer(c, b.statusText(c.key, c.pl, c.m.ID)) }},
	"usage":  {run: func(b *Bot, _ context.Context, c commandCall) { b.answer(c, b.usageText(c.key)) }},
	"planmode": {run: func(b *Bot, ctx context.Context, c commandCall) {
		b.answer(c, b.planModeCommand(ctx, c.key, c.pl, c.group, strings.ToLower(c.args)))
	}},
	"model": {run: func(b *Bot, _ context.Context, c commandCall) { b.answer(c, b.modelCommand(c.key, c.args)) }},
	"verbose": {run: func(b *Bot, _ context.Context, c commandCall) {
		b.answer(c, b.verboseCommand(c.key, strings.ToLower(c.args)))
	}},
	"stream": {run: func(b *Bot, _ context.Context, c commandCall) {
		b.answer(c, b.streamCommand(c.key, c.group, strings.ToLower(c.args)))
	}},
	"speak": {run: func(b *Bot, _ context.Context, c commandCall) {
		b.answer(c, b.speakCommand(c.key, strings.ToLower(c.args)))
	}},
	"cwd":      {run: func(b *Bot, ctx context.Context, c commandCall) { b.cwdAnswer(ctx, c) }},
	"topic":    {run: func(b *Bot, ctx context.Context, c commandCall) { b.topicCommand(ctx, c.key, c.pl, c.m.ID, c.args) }},
	"sessions": {run: func(b *Bot, ctx context.Context, c commandCall) { b.sessionsCommand(ctx, c.key, c.pl, c.m.ID) }},
	"get":      {run: func(b *Bot, ctx context.Context, c commandCall) { b.getCommand(ctx, c.key, c.pl, c.m.ID, c.args) }},
	"diff":     {run: func(b *Bot, ctx context.Context, c commandCall) { b.diffCommand(ctx, c.key, c.pl, c.m.ID, c.args) }},
	"host":     {run: func(b *Bot, ctx context.Context, c commandCall) { b.answer(c, b.hostCommand(ctx, c.key, c.args)) }},
	"engine": {run: func(b *Bot, ctx context.Context, c commandCall) {
		engines.Switch{Core: b.core, Out: controlOut{b}, Log: b.log}.Command(ctx, c.key, c.pl, c.m.ID, c.args)
	}},
	"retry": {run: func(b *Bot, _ context.Context, c commandCall) {
		if n := b.core.Retry(c.key, c.pl); n > 0 {
			b.answer(c, view.RetryQueued(n))
			return
		}
		b.answer(c, view.RetryNone)
	}},
	"branch": {run: func(b *Bot, ctx context.Context, c commandCall) {
		b.answer(c, b.branchCommand(ctx, c.key, c.pl, c.m.ID, c.args))
	}},
	"at":        {run: func(b *Bot, _ context.Context, c commandCall) { b.answer(c, b.atCommand(c)) }},
	"every":     {run: func(b *Bot, _ context.Context, c commandCall) { b.answer(c, b.everyCommand(c)) }},
	"schedules": {run: func(b *Bot, ctx context.Context, c commandCall) { b.schedulesCommand(ctx, c) }},
	"web": {run: func(b *Bot, ctx context.Context, c commandCall) {
		weblink.Command{Logins: b.cfg.Web, Out: controlOut{b}, Log: b.log}.Run(ctx,
			weblink.Call{Place: c.pl, MsgID: c.m.ID, From: c.m.From, Group: c.group, Args: c.args})
	}},
}

// helpCommand answers /start and /help alike: a newcomer's first /start
// gets the same introduction as /help.
func helpCommand(b *Bot, _ context.Context, c commandCall) {
	b.answer(c, view.HelpText(c.group, b.me.Username))
}

// ownCommands maps every name the bot answers to itself, aliases
// included, to its command's name in view.BotCommands.
var ownCommands = func() map[string]string {
	own := map[string]string{}
	for _, c := range view.BotCommands() {
		own[c.Name] = c.Name
		for _, a := range c.Aliases {
			own[a] = c.Name
		}
	}
	return own
}()

// isBotCommand says whether the bot answers cmd (lower case, without "/"
// and "@bot") itself; any other command is Claude Code's (claudecmds.go).
func isBotCommand(cmd string) bool {
	_, ok := ownCommands[cmd]
	return ok
}

// route runs one of the bot's commands (isBotCommand); commands never
// wait behind a turn. /cancel runs at once on the poll loop (atOnce).
// Every other command runs in its session's lane, since many wait for
// Claude or the disk, and must stall only their own chat.
func (b *Bot) route(key string, pl place, m *models.Message, cmd, args string) {
	c := commandCall{key: key, pl: pl, m: m, args: args, group: isGroup(m.Chat.ID)}
	h, ok := commandHandlers[ownCommands[cmd]]
	if !ok { // a name in view.BotCommands without a handler: the tests rule it out
		h.run = func(b *Bot, _ context.Context, c commandCall) { b.answer(c, view.UnknownCommand(cmd)) }
	}
	if h.atOnce {
		h.run(b, context.Background(), c)
		return
	}
	b.lanes.run(key, func(ctx context.Context) { h.run(b, ctx, c) })
}

// answer replies to the command's message.
func (b *Bot) answer(c commandCall, text string) { b.api.notify(c.pl, c.m.ID, text) }

// statusText shows the directory as checked (chatDir), not a stored one
// that no longer passes.
func (b *Bot) statusText(key string, pl place, replyTo int) string {
	b.chatDir(key, pl, replyTo)
	d := b.core.Describe(key)
	s := view.Status{Model: d.Model, ModelSource: d.ModelSource, PlanMode: d.PlanMode, PlanModeSource: d.PlanSource,
		Verbose: d.Verbose, VerboseSource: d.VerboseSource, PermissionMode: d.Mode, WorkDir: d.WorkDir, WorkDirSource: d.WorkSource,
		Stream: d.Stream, StreamSource: d.StreamSource, Version: b.cfg.Version, ClaudeVersion: d.Machine.ClaudeVersion,
		SessionID: d.SessionID, ChatCostUSD: d.Money.ConversationUSD, SpentToday: d.Money.SpentToday,
		DailyBudget: d.Money.DailyBudget, Queued: d.Queued, Running: d.Running, Live: d.Status.Live, Held: d.Held, Desk: d.Desk}
	if b.machines.Len() > 1 {
		s.Host, s.HostSource = d.Host, d.HostSource
	}
	if len(d.Machine.EngineNames()) > 1 {
		s.Engine, s.EngineSource = d.Settings.Engine, d.EngineSource
	}
	if b.cfg.Speak.Speaker != nil {
		s.Speak, s.SpeakSource = b.speech.mode(key)
	}
	return view.StatusText(s)
}

func (b *Bot) planModeCommand(ctx context.Context, key string, pl place, group bool, arg string) string {
	var err error
	switch arg {
	case "", "show":
		st := b.core.Settings(key)
		return view.PlanModeShow(st.PlanMode, st.PlanSource)
	case "on", "off", "auto":
	case "clear":
		arg = string(prefs.PlanUnset)
	default:
		return view.UsagePlanMode
	}
	live, applyErr, err := b.core.SetPlanMode(ctx, key, prefs.PlanMode(arg))
	if err != nil {
		return view.SettingNotSaved(b.redact(err.Error()))
	}
	st, why := b.core.Settings(key), ""
	if applyErr != nil {
		why = applyErr.Error()
	}
	return view.PlanModeSet(st.PlanMode, st.PlanSource, live, why)
}

func (b *Bot) modelCommand(key, arg string) string {
	var err error
	switch {
	case arg == "" || arg == "show":
		st := b.core.Settings(key)
		return view.ModelShow(st.Model, st.ModelSource)
	case arg == "clear":
		err = b.core.SetModel(key, "")
	case strings.ContainsAny(arg, " \t\n") || len(arg) > 100:
		return view.UsageModel
	default:
		err = b.core.SetModel(key, arg)
	}
	if err != nil {
		return view.SettingNotSaved(b.redact(err.Error()))
	}
	st := b.core.Settings(key)
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
	st := b.core.Settings(key)
	return view.VerboseShow(st.Verbose, st.VerboseSource)
}

// streamCommand is /stream: how this chat sees Claude's text as it is
// written (chat.Core.SetStream).
func (b *Bot) streamCommand(key string, group bool, arg string) string {
	var err error
	switch {
	case arg == "" || arg == "show":
		st := b.core.Settings(key)
		return view.StreamShow(st.Stream, st.StreamSource, group)
	case arg == "clear":
		err = b.core.SetStream(key, "")
	case view.ValidStream(arg):
		err = b.core.SetStream(key, arg)
	default:
		return view.UsageStream
	}
	if err != nil {
		return view.SettingNotSaved(b.redact(err.Error()))
	}
	st := b.core.Settings(key)
	return view.StreamSet(st.Stream, st.StreamSource, group)
}
