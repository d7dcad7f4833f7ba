package approvals

import (
	"fmt"
	"time"

	"github.com/untether/untether/human"
)

// Texts Claude reads as the tool result of a denial. They are written for the
// model: they say what happened and what to do next.

const (
	msgDenied = "The user denied permission for this tool call. Do not retry it; " +
		"continue without it, or say in your reply what you need and why."

	msgPlanDenied = "The user rejected this plan. Ask the user, in plain text in your reply, " +
		"what they want changed. Do not call ExitPlanMode again until the user has answered."

	msgOutline = "The user is reading on a phone and sees only your text replies, not the plan file. " +
		"Stop and write the plan as a visible step-by-step outline in plain text in your reply: " +
		"the files you will touch, what changes in each, the order of the steps, and the risks. " +
		"Then call ExitPlanMode again."

	msgQuestionsDismissed = "The user dismissed these questions without answering. " +
		"Continue with your best judgement, or ask again in plain text if you cannot."

	msgBadQuestions = "These questions could not be shown to the user: the input has no readable " +
		`"questions" list with options. Ask the question in plain text in your reply instead.`
)

func msgTimedOut(d time.Duration) string {
	return fmt.Sprintf("The user did not answer in time (%s), so this was denied automatically "+
		"after timing out. Do not retry it right away; continue without it, or say in your reply "+
		"what you need so the user can answer later.", human.DurationUp(d))
}

func msgCancelled(reason string) string {
	if reason == "" {
		reason = "the request was cancelled"
	}
	return "Cancelled before the user answered: " + reason + "."
}

func msgCooldown(left time.Duration) string {
	return fmt.Sprintf("Plan approval is paused: the user asked for a written outline first. "+
		"Write the step-by-step outline of the plan as plain text in your reply (files, changes, "+
		"order, risks), and wait about %s before calling ExitPlanMode again.", human.DurationUp(left))
}

func msgOutlineGate(have, need int) string {
	return fmt.Sprintf("Not yet: the user asked for a visible outline of the plan, but only %d "+
		"characters of it have been written since (at least %d are needed). Write the "+
		"step-by-step outline as plain text in your reply (files, changes, order, risks), "+
		"then call ExitPlanMode again.", have, need)
}
