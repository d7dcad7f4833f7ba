package view

import "strconv"

// Texts of /web, the sign-in link to the web view (telegram/weblink).

// WebLink is /web's reply in a private chat: the one-time link, which
// signs in once, within minutes.
func WebLink(url string, minutes int) string {
	return "🌐 <b>Web view</b>\n<a href=\"" + esc(url) + "\">Open the web view</a> — this link signs you in once, within " +
		strconv.Itoa(minutes) + " minutes. Don't share it: whoever opens it first is signed in as you.\n" +
		"<code>" + esc(url) + "</code>\n/web logout ends every web session of yours."
}

// WebAppButton is the label of the button that opens the web view as a
// Mini App inside Telegram.
const WebAppButton = "Open in Telegram"

// WebInGroup answers /web in a group: the link is personal, so it is never
// posted where others read it.
const WebInGroup = "🌐 The web view's sign-in link is personal: send /web to me in our private chat."

// WebOff answers /web when the web view is not configured.
const WebOff = "🌐 The web view is off. The owner turns it on with <code>[web] listen</code> in the config (docs/web.md)."

// WebFailed answers /web when no link could be made.
const WebFailed = "🌐 Could not make a sign-in link; try again in a minute."

// WebLoggedOut answers /web logout: how many web sessions ended.
func WebLoggedOut(n int) string {
	if n == 1 {
		return "🌐 Signed out: 1 web session ended."
	}
	return "🌐 Signed out: " + strconv.Itoa(n) + " web sessions ended."
}

// WebUsage answers /web with an argument it does not take.
const WebUsage = "Usage: /web for a sign-in link, /web logout to end your web sessions."
