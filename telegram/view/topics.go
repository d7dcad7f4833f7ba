package view

// Replies of /topic, which opens a topic of a private chat for a project
// (Bot API 9.3/9.4: topics in private chats).

// TopicUsage answers /topic without a name.
const TopicUsage = "Usage: /topic &lt;name&gt; — opens a topic of this chat with its own Claude session. " +
	"A name that is a project directory (as /cwd takes it) makes the topic work there."

// TopicGroup answers /topic in a group: its topics are the group's own.
const TopicGroup = "/topic opens topics in the private chat with the bot. In a group, open a topic in the group " +
	"(it must have topics turned on): each topic is a session of its own there already."

// TopicsOff answers /topic where Telegram has no topics in the private
// chat (not enabled for the bot, or refused): the chat stays one session.
func TopicsOff(why string) string {
	msg := "Topics are not available in this chat, so it stays one session (/cwd still moves it between projects). " +
		"The bot's owner turns them on for the bot in @BotFather (Bot Settings → Topics in private chats)."
	if why != "" {
		msg += " Telegram said: " + esc(why)
	}
	return fit(msg)
}

// TopicOpened answers /topic: the topic exists and works in dir.
func TopicOpened(name, dir string) string {
	return fit("🗂 Opened the topic <b>" + escHead(oneLine(name), 200) + "</b>, working in <code>" + shownPath(dir, 600) +
		"</code>: open it in the chat's topic list. Its messages are a Claude session of their own, with their own " +
		"directory, model and modes.")
}

// TopicWelcome is the first message in a new topic.
func TopicWelcome(dir string) string {
	return fit("🗂 This topic works in <code>" + shownPath(dir, 600) + "</code>. Send a message to start; " +
		"/cwd, /model and the other settings apply to this topic only.")
}

// TopicKeyboard is the button under a /cwd answer that opens a topic for
// the project (name: its directory's base name).
func TopicKeyboard(name, data string) Keyboard {
	return Keyboard{{{Text: "🗂 Open a topic for " + clip(oneLine(name), maxButtonRunes), Data: data, Style: StylePrimary}}}
}

// Toasts of the topic button.
const ToastTopicRefused = "Telegram refused the topic: see the message"

// ToastTopicOpened answers the topic button: the topic named name exists.
func ToastTopicOpened(name string) string {
	return clip("Opened the topic "+oneLine(name)+": find it in the chat's topics", maxToast)
}
