package speak

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestGuard: three failures in a row pause a chat (told once), other
// chats are not touched, a success clears the count, and the pause ends
// after PauseFor.
func TestGuard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g Guard
		for range FailuresMax - 1 {
			if g.Failed("a") {
				t.Fatal("paused before the third failure")
			}
		}
		g.Succeeded("a")
		for range FailuresMax - 1 {
			if g.Failed("a") {
				t.Fatal("a success did not clear the count")
			}
		}
		if g.Paused("a") {
			t.Fatal("paused before the third failure")
		}
		if !g.Failed("a") {
			t.Fatal("the third failure in a row did not pause the chat")
		}
		if g.Failed("a") {
			t.Error("a failure while paused told the chat again")
		}
		if !g.Paused("a") || g.Paused("b") {
			t.Errorf("paused a=%v b=%v, want true false", g.Paused("a"), g.Paused("b"))
		}
		time.Sleep(PauseFor - time.Second)
		if !g.Paused("a") {
			t.Error("the pause ended early")
		}
		time.Sleep(time.Second)
		if g.Paused("a") {
			t.Error("still paused after an hour")
		}
		if g.Failed("a") {
			t.Error("after the pause the count did not start again")
		}
	})
}
