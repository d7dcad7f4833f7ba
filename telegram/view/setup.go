package view

import "strconv"

// SetupDone answers the message the owner sent while untether init waited
// for it: the bot now answers that account only, once it runs.
func SetupDone(userID int64) string {
	return fit("✅ <b>untether is set up.</b> This bot answers only you (user id <code>" +
		strconv.FormatInt(userID, 10) + "</code>).\n" +
		"Start it on your computer with the command <code>untether init</code> printed; " +
		"then send a message here and Claude Code works on it.")
}
