package prefs

import "testing"

// Switching parks the current session under the engine left; switching
// back brings it back as current, while the other engine's session is
// parked in turn; an engine with nothing parked starts fresh.
func TestSwitchEngineParksAndResumes(t *testing.T) {
	s := openTest(t)
	const key = "chat:1"
	if err := s.StartSession(key, "claude-1", "first", "/w"); err != nil {
		t.Fatal(err)
	}
	resumed, err := s.SwitchEngine(key, "claude", "codex")
	if err != nil || resumed != "" {
		t.Fatalf("to codex: resumed %q, %v; want a fresh session", resumed, err)
	}
	if _, ok, _ := s.Session(key); ok {
		t.Error("a session is current after switching to an engine that had none")
	}
	if p, _ := s.Prefs(key); p.Engine != "codex" {
		t.Errorf("engine = %q", p.Engine)
	}
	if err := s.StartSession(key, "codex-1", "second", "/w"); err != nil {
		t.Fatal(err)
	}
	resumed, err = s.SwitchEngine(key, "codex", "claude")
	if err != nil || resumed != "claude-1" {
		t.Fatalf("back to claude: resumed %q, %v; want claude-1", resumed, err)
	}
	rec, ok, _ := s.Session(key)
	if !ok || rec.SessionID != "claude-1" || rec.Title != "first" {
		t.Errorf("current = %+v", rec)
	}
	if resumed, _ = s.SwitchEngine(key, "claude", "codex"); resumed != "codex-1" {
		t.Errorf("to codex again: resumed %q, want codex-1", resumed)
	}
}
