package weblink

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/telegram/tgtest"
)

// IsMember asks getChatMember: members, administrators and restricted
// members are in; who left, was banned or never joined is not; an unknown
// chat or a failing Telegram is an error that says "not a member" and is
// asked again next time; an answer is kept for MemberTTL, then asked again.
func TestMembers(t *testing.T) {
	grp := tgtest.Supergroup(-1001234, "Team")
	alice := tgtest.User{ID: 42, FirstName: "Alice"}
	bob := tgtest.User{ID: 43, FirstName: "Bob"}
	carol := tgtest.User{ID: 44, FirstName: "Carol"}
	dave := tgtest.User{ID: 45, FirstName: "Dave"}
	erin := tgtest.User{ID: 46, FirstName: "Erin"}
	tg := tgtest.New(t, tgtest.WithChats(grp))
	tg.SendMessage(alice, grp, "hello")
	tg.SetMember(grp, carol, tgtest.StatusAdministrator, false)
	tg.SetMember(grp, dave, tgtest.StatusRestricted, true)
	tg.SetMember(grp, erin, tgtest.StatusKicked, false)
	now := time.Unix(1_800_000_000, 0)
	m := &Members{API: API{URL: tg.URL(), Token: tg.Token()}, Now: func() time.Time { return now }}
	ctx := context.Background()
	for user, want := range map[int64]bool{alice.ID: true, bob.ID: false, carol.ID: true, dave.ID: true, erin.ID: false} {
		if in, err := m.IsMember(ctx, grp.ID, user); in != want || err != nil {
			t.Errorf("user %d: %v %v, want %v", user, in, err, want)
		}
	}
	if in, err := m.IsMember(ctx, -100999, alice.ID); in || err == nil || !strings.Contains(err.Error(), "Bad Request: chat not found") {
		t.Errorf("an unknown chat: %v %v", in, err)
	}

	asked := len(tg.CallsTo("getChatMember"))
	tg.SetMember(grp, alice, tgtest.StatusLeft, false)
	if in, _ := m.IsMember(ctx, grp.ID, alice.ID); !in || len(tg.CallsTo("getChatMember")) != asked {
		t.Errorf("within a minute: %v, asked %d more times, want the kept answer", in, len(tg.CallsTo("getChatMember"))-asked)
	}
	now = now.Add(MemberTTL)
	if in, _ := m.IsMember(ctx, grp.ID, alice.ID); in {
		t.Errorf("a minute after alice left: still a member")
	}

	now = now.Add(MemberTTL)
	tg.FailNext("getChatMember", 1, tgtest.Failure{Code: 500})
	if in, err := m.IsMember(ctx, grp.ID, carol.ID); in || err == nil {
		t.Errorf("Telegram failing: %v %v, want not a member and an error", in, err)
	}
	if in, err := m.IsMember(ctx, grp.ID, carol.ID); !in || err != nil {
		t.Errorf("after the failure: %v %v (an error is not kept)", in, err)
	}
}
