package engine

import "context"

// Durable is an Engine whose sessions can outlive the bot process: the
// agent runs held outside the bot (package hold for Claude Code), and a
// bot started later attaches to it again. See docs/durability.md.
type Durable interface {
	// Reattach attaches to a session a previous bot process left running:
	// handle is what its Conn's Held.Handle said, spec the chat's as at a
	// start. The journal is replayed from record from (0: nothing is
	// replayed): its events come first, then Replayed, then what comes.
	// A session that is gone (the holder ended, the machine rebooted) is
	// an error wrapping ErrGone; one held by another version of the bot,
	// which this one cannot speak to, an error wrapping ErrOtherVersion;
	// one on a machine that could not be reached, any other error (the
	// host's own, such as host.ErrUnreachable).
	Reattach(ctx context.Context, spec Spec, handle string, from uint64) (Conn, error)
}

// Held is a Conn whose process outlives the bot.
type Held interface {
	// Handle names the session for Durable.Reattach; it holds a secret
	// and is kept only in the bot's state file.
	Handle() string
	// SentAt is the journal record of the last prompt Send wrote: a
	// re-attach mid-turn replays from it. It is 0 while that prompt still
	// waits to be written (Send took it as sent, a link being down): the
	// caller keeps the record it expected (Seen()+1 before Send), never
	// the previous prompt's, which would replay that turn as this one.
	SentAt() uint64
	// Seen is the last journal record this Conn has read: a prompt about
	// to be sent will be a later one.
	Seen() uint64
	// Detach leaves the process running and ends this Conn: its events
	// stop (without Exited) and Done is closed.
	Detach()
}

// ErrGone is wrapped by Reattach when the session is no longer there.
var ErrGone = errorString("the held session is gone")

// ErrOtherVersion is wrapped by Reattach when the session is there but its
// holder speaks another version of the protocol (an upgrade or a downgrade
// between the bot that started it and this one): this bot cannot carry it
// on.
var ErrOtherVersion = errorString("the held session runs under another version")

type errorString string

func (e errorString) Error() string { return string(e) }

// Replayed follows the events a re-attach replayed from the journal: they
// happened while no bot listened (or before the last one stopped), and
// what they showed the user may already be on the screen.
type Replayed struct {
	// Prompts is how many prompts the replay holds: none when the bot
	// stopped before the prompt it meant to send reached the agent (it
	// is then sent again).
	Prompts int
	// Truncated: the start of the replay was dropped (the journal's bound,
	// in a turn of many megabytes); the prompt may be among what was lost.
	Truncated bool
	// Steered are the ids of the lines steered into the turn that the
	// replay holds (engine.Steerer): a message the bot steered whose line
	// is not there never reached the agent (the bot stopped while it
	// waited for the holder) and is not followed as held by it.
	Steered []string
}

func (Replayed) event() {}

// LessSafe is a Held Conn that knows how its process was started: a held
// process keeps its start's flags for its life, and the config may ask for
// more safety by the time a bot re-attaches (the project's own settings no
// longer trusted, a tool no longer allowed unasked). LessSafe says how it
// may do more unasked than one started now would ("" when it may not);
// the core then lets it serve no new turn. A Held Conn that is no LessSafe
// is taken as started as the config says.
type LessSafe interface {
	LessSafe() string
}
