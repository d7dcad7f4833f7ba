package chat

import (
	"testing"

	"github.com/untether/untether/prefs"
)

// Two refused prompts of one chat, each with its Run anyway pressed before
// either runs: both were put first in line, so both must run past the
// limit, not only the last pressed (the first was refused again).
func TestRunAnywayTwoPressesInOneChatBothGranted(t *testing.T) {
	var b anywayBook
	one := b.offer(anywayRun{key: "42", qp: prefs.QueuedPrompt{Key: "42", Seq: 1}, over: OverDailyBudget})
	two := b.offer(anywayRun{key: "42", qp: prefs.QueuedPrompt{Key: "42", Seq: 2}, over: OverDailyBudget})
	if _, ok := b.take("42", one); !ok {
		t.Fatal("first press refused")
	}
	if _, ok := b.take("42", two); !ok {
		t.Fatal("second press refused")
	}
	if _, ok := b.take("42", two); ok {
		t.Error("a token was taken twice")
	}
	if got := b.granted("42", 1); got != OverDailyBudget {
		t.Errorf("the first pressed run may run past %b, want %b", got, OverDailyBudget)
	}
	if got := b.granted("42", 2); got != OverDailyBudget {
		t.Errorf("the second pressed run may run past %b, want %b", got, OverDailyBudget)
	}
	if got := b.granted("42", 1); got != 0 {
		t.Errorf("a grant was used twice: %b", got)
	}
}
