package host

import "context"

// Keeper is a host on which the bot keeps files of its own (host/ssh: its
// agent, the holders' folders with their journals, the MCP configs with
// their secrets, the forwarded sockets, the users' uploads): folders no
// chat may read through the path rule, as the bot's own files on this
// machine (its config, state, holders and MCP folders) are not. Optional:
// a host without it keeps nothing of the bot's (host.Local: what the bot
// keeps here is named by its config, scope.Rule.Forbidden).
type Keeper interface {
	// PrivateDirs are those folders, paths on the machine; an error when
	// they cannot be told now (the machine does not answer).
	PrivateDirs(ctx context.Context) ([]string, error)
}

// PrivateDirs are h's own private folders when it keeps any (Keeper),
// else none.
func PrivateDirs(ctx context.Context, h Host) ([]string, error) {
	if k, ok := h.(Keeper); ok {
		return k.PrivateDirs(ctx)
	}
	return nil, nil
}
