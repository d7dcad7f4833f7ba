package chat

import (
	"time"

	"github.com/untether/untether/cooldown"
	"github.com/untether/untether/prefs"
)

// The approvals broker as the core keeps it: its plan cooldown and its
// button tokens survive a restart.

// storedCooldown is the plan cooldown, as saved before a restart and kept
// saved from now on: a model that keeps coming back too soon must not get
// a fresh start because the bot restarted.
func (c *Core) storedCooldown() *cooldown.Tracker {
	cool := cooldown.New(c.cfg.CooldownBase, c.cfg.CooldownMax, time.Now)
	saved, err := c.store.Cooldowns()
	if err != nil {
		c.log.Warn("could not read the saved plan cooldowns", "err", err)
	}
	for key, c := range saved {
		cool.Restore(key, c.Count, c.Until)
	}
	cool.Persist(func(key string, count int, until time.Time) {
		if err := c.store.SetCooldown(key, prefs.Cooldown{Count: count, Until: until}); err != nil {
			c.log.Warn("could not save the plan cooldown", "session_key", key, "err", err)
		}
	})
	return cool
}

// approvalSeed is the secret the broker derives its button tokens from, so
// that a request asked again after a restart has the buttons it had
// (approvals.Config.TokenSeed). Without it tokens are random, as before.
func (c *Core) approvalSeed() []byte {
	seed, err := c.store.Seed("approvals")
	if err != nil {
		c.log.Warn("approval buttons will not survive a restart", "err", err)
		return nil
	}
	return seed
}
