package telegram

import (
	"github.com/untether/untether/engine"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/view"
)

// A chat's effective settings: the chat's own value where it set one (see
// the commands /model, /planmode, /verbose, /cwd), else the config's.

// chatSettings are the effective per-chat values and where each comes from.
type chatSettings struct {
	Model, ModelSource   string
	PlanMode, PlanSource string
	Verbose              bool
	VerboseSource        string
	PermissionMode       string // the mode a new process starts in
	PermissionSource     string
	WorkDir, WorkSource  string
	Stream, StreamSource string // view.StreamOff, StreamEdits or StreamDrafts
	// Host is the machine the chat works on (a name of Bot.machines);
	// WorkDir's default is that machine's working directory.
	Host, HostSource string
}

const (
	fromChat   = view.SourceChat
	fromConfig = view.SourceConfig
)

// settings returns the session's effective settings. A store that cannot
// be read leaves the config's values (and a line in the log).
func (b *Bot) settings(key string) chatSettings {
	s := chatSettings{Model: b.cfg.Model, ModelSource: fromConfig, PlanMode: b.cfg.PlanMode, PlanSource: fromConfig,
		VerboseSource: fromConfig, WorkSource: fromConfig, Stream: b.cfg.Stream, StreamSource: fromConfig,
		Host: b.defaultMachine().Name, HostSource: fromConfig}
	p, err := b.store.Prefs(key)
	if err != nil {
		b.log.Warn("could not read chat settings", "session_key", key, "err", err)
	}
	// A machine no longer configured is no choice: the default's.
	if _, ok := b.machines[p.Host]; ok {
		s.Host, s.HostSource = p.Host, fromChat
	}
	s.WorkDir = b.machines[s.Host].WorkDir
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
	if view.ValidStream(p.Stream) {
		s.Stream, s.StreamSource = p.Stream, fromChat
	}
	s.PermissionMode, s.PermissionSource = startMode(s.PlanMode, b.cfg.PermissionMode), s.PlanSource
	return s
}

// startMode is the permission mode implied by the plan-mode setting.
func startMode(planMode, configured string) string {
	switch planMode {
	case "on", "auto":
		return engine.ModePlan
	}
	if configured == engine.ModePlan {
		return engine.ModeDefault // plan mode off overrides a configured plan mode
	}
	return configured
}

// liveMode is the permission mode to switch a running process to: the
// CLI refuses an empty one, which means no mode was configured, the same
// as a new process gets (engine.DefaultPermissionMode).
func (s chatSettings) liveMode() string {
	if s.PermissionMode == "" {
		return engine.DefaultPermissionMode
	}
	return s.PermissionMode
}
