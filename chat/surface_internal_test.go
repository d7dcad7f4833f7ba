package chat

import (
	"context"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/prefs"
)

// quietSurface is a frontend that shows nothing: for tests of the core's
// own bookkeeping.
type quietSurface struct{}

func (quietSurface) Note(Place, int, Note)                                   {}
func (quietSurface) Queued(Place, int, *prefs.Origin, int)                   {}
func (quietSurface) QueueDropped(Place)                                      {}
func (quietSurface) Announce(context.Context, Place, prefs.QueuedPrompt) int { return 0 }
func (quietSurface) StartTurn(TurnStart) TurnSurface                         { return nil }
func (quietSurface) SessionStarted(context.Context, Place, string, string)   {}
func (quietSurface) PromptResolved(approvals.Resolution)                     {}
