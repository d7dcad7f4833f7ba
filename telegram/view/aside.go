package view

// /btw: a question aside while a turn runs.

const (
	// AsideFooter marks an answer aside under it.
	AsideFooter = "<i>💬 answered aside: the running turn did not see this</i>"
	// AsideUsage answers /btw without a question.
	AsideUsage = "Ask aside with <code>/btw QUESTION</code>: while a turn runs it is answered at once, without disturbing it."
	// NoAside: the engine cannot answer aside.
	NoAside = "This engine cannot answer a question aside: send it as a message, it runs after the turn."
	// AsideIdle: the turn was still starting or had just ended.
	AsideIdle = "No turn is running now: send it as a message."
	// AsideBusy: the chat's previous question aside is still being
	// answered (one at a time).
	AsideBusy = "The previous question aside is still being answered: ask again once it is."
	// AsideFailed: the agent gave no answer.
	AsideFailed = "The question aside got no answer: see the bot's log."
)
