package chat

import (
	"context"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/prefs"
)

// A conversation's effective settings: its own value where it set one (see
// the commands /model, /planmode, /verbose, /cwd), else the config's.

// Settings are the effective per-conversation values and where each comes
// from (SourceChat or SourceConfig).
type Settings struct {
	Model, ModelSource   string
	PlanMode, PlanSource string
	Verbose              bool
	VerboseSource        string
	PermissionMode       string // the mode a new process starts in
	PermissionSource     string
	WorkDir, WorkSource  string
	Stream, StreamSource string // StreamOff, StreamEdits or StreamDrafts
	// Host is the machine the conversation works on (a name of Machines);
	// WorkDir's default is that machine's working directory.
	Host, HostSource string
	// Steer: a message sent while a turn runs goes into it (steer.go).
	Steer bool
	// Engine is the agent the conversation runs there (/engine); "" when
	// the machine offers one engine only.
	Engine, EngineSource string
}

// Where a setting comes from.
const (
	SourceChat   = "chat setting" // the conversation set it (/model, /planmode, ...)
	SourceConfig = "config"       // the config file's value
)

const (
	fromChat   = SourceChat
	fromConfig = SourceConfig
)

// How the text the agent writes shows while it is written.
const (
	StreamOff    = "off"    // nothing shown until the answer
	StreamEdits  = "edits"  // the latest paragraph in the progress message
	StreamDrafts = "drafts" // a live draft in private chats; edits elsewhere
)

// ValidStream says whether m is one of the stream modes.
func ValidStream(m string) bool { return m == StreamOff || m == StreamEdits || m == StreamDrafts }

// Settings returns the conversation's effective settings. A store that
// cannot be read leaves the config's values (and a line in the log).
func (b *Core) Settings(key string) Settings {
	s := Settings{Model: b.cfg.Model, ModelSource: fromConfig, PlanMode: b.cfg.PlanMode, PlanSource: fromConfig,
		VerboseSource: fromConfig, WorkSource: fromConfig, Stream: b.cfg.Stream, StreamSource: fromConfig,
		Host: b.machines.Default().Name, HostSource: fromConfig}
	p, err := b.store.Prefs(key)
	if err != nil {
		b.log.Warn("could not read chat settings", "session_key", key, "err", err)
	}
	// A machine no longer configured is no choice: the default's.
	if _, ok := b.machines.Get(p.Host); ok {
		s.Host, s.HostSource = p.Host, fromChat
	}
	m := b.machines.Named(s.Host)
	s.WorkDir = m.WorkDir
	// An engine not offered there is no choice: the machine's default.
	s.Engine, s.EngineSource = m.WithEngine("").EngineName, fromConfig
	if p.Engine != "" && m.WithEngine(p.Engine).EngineName == p.Engine {
		s.Engine, s.EngineSource = p.Engine, fromChat
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
	if ValidStream(p.Stream) {
		s.Stream, s.StreamSource = p.Stream, fromChat
	}
	s.Steer = p.Steer
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

// LiveMode is the permission mode to switch a running process to: the
// CLI refuses an empty one, which means no mode was configured, the same
// as a new process gets (engine.DefaultPermissionMode).
func (s Settings) LiveMode() string {
	if s.PermissionMode == "" {
		return engine.DefaultPermissionMode
	}
	return s.PermissionMode
}

// Changing a conversation's settings: stored at once; a live process gets
// them as its settings allow (a model or a stream mode at its next start,
// a permission mode at once).

// SetModel sets the conversation's model ("" clears it); the next turn
// starts a process resuming the session with it.
func (b *Core) SetModel(key, model string) error {
	if err := b.store.SetModel(key, model); err != nil {
		return err
	}
	b.RestartAfterTurn(key)
	return nil
}

// SetPlanMode sets the conversation's plan mode (prefs.PlanUnset clears
// it) and switches a live process to the permission mode it gives: live
// says there was one, applyErr why it did not switch.
func (b *Core) SetPlanMode(ctx context.Context, key string, mode prefs.PlanMode) (live bool, applyErr, err error) {
	if err := b.store.SetPlanMode(key, mode); err != nil {
		return false, nil, err
	}
	live, applyErr = b.SetLiveMode(ctx, key)
	return live || applyErr != nil, applyErr, nil
}

// SetStream sets how the conversation sees the agent's text as it is
// written ("" clears it). Turning it on or off restarts the process after
// the running turn (resuming): the agent sends partial text only when
// asked at start.
func (b *Core) SetStream(key, mode string) error {
	before := b.Settings(key).Stream
	if err := b.store.SetStream(key, mode); err != nil {
		return err
	}
	if after := b.Settings(key).Stream; (before == StreamOff) != (after == StreamOff) {
		b.RestartAfterTurn(key)
	}
	return nil
}
