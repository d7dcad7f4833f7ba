package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serviceEnv is a config made by init's writer, with claude in a
// directory of its own, and an empty systemd user directory.
func serviceEnv(t *testing.T, dirName string) (config, claude, xdg string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), dirName)
	return serviceEnvIn(t, dir, filepath.Join(dir, "claude bin"))
}

// serviceEnvIn is serviceEnv with the config in dir and claude in bin.
func serviceEnvIn(t *testing.T, dir, bin string) (config, claude, xdg string) {
	t.Helper()
	work := filepath.Join(dir, "work")
	for _, d := range []string{bin, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	claude = writeScript(t, bin, "claude", "echo '1.0.0 (Claude Code)'")
	text, err := configText("https://api.telegram.org", "7000000001:AAservice-test-token", 5150, claude, work)
	if err != nil {
		t.Fatal(err)
	}
	config = filepath.Join(dir, "untether.toml")
	if err := writeConfig(config, text); err != nil {
		t.Fatal(err)
	}
	return config, claude, filepath.Join(dir, "xdg")
}

func TestServiceInstall(t *testing.T) {
	config, claude, xdg := serviceEnv(t, "home")
	getenv := func(k string) string { return map[string]string{"XDG_CONFIG_HOME": xdg}[k] }
	exe := "/opt/untether/bin/untether"
	var out strings.Builder
	if err := installService(context.Background(), serviceFlags{config: config}, exe, getenv, &out); err != nil {
		t.Fatal(err)
	}
	unitPath := filepath.Join(xdg, "systemd", "user", "untether.service")
	raw, err := os.ReadFile(unitPath)
	if err != nil {
		t.Fatal(err)
	}
	unit := string(raw)
	t.Logf("%s:\n%s", unitPath, unit)
	wantPath := `Environment="PATH=` + filepath.Dir(claude) + ":"
	for _, want := range []string{"ExecStart=" + exe + " run --config " + config + "\n", "Restart=on-failure\n", wantPath,
		"KillMode=process\n", "WantedBy=default.target\n"} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %q", want)
		}
	}
	for _, want := range []string{"Wrote " + unitPath, "systemctl --user daemon-reload", "systemctl --user enable --now untether",
		"journalctl --user -u untether -f", "loginctl enable-linger"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	if err := installService(context.Background(), serviceFlags{config: config}, exe, getenv, &out); err != nil ||
		!strings.Contains(out.String(), "is up to date") {
		t.Errorf("again: %v %s", err, out.String())
	}
	// Another untether: the unit differs, and is replaced only with --force.
	other := "/usr/local/bin/untether"
	err = installService(context.Background(), serviceFlags{config: config}, other, getenv, &out)
	if err == nil || !strings.Contains(err.Error(), "exists and differs: pass --force") {
		t.Errorf("differs: %v", err)
	}
	out.Reset()
	if err := installService(context.Background(), serviceFlags{config: config, print: true}, other, getenv, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "# Written by untether service install") || !strings.Contains(out.String(), "ExecStart="+other) {
		t.Errorf("--print: %s", out.String())
	}
	if raw, _ := os.ReadFile(unitPath); string(raw) != unit {
		t.Error("--print wrote the unit")
	}
	if err := installService(context.Background(), serviceFlags{config: config, force: true}, other, getenv, &out); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(unitPath); !strings.Contains(string(raw), "ExecStart="+other+" ") {
		t.Errorf("--force did not replace it:\n%s", raw)
	}
}

// Paths with spaces, %, $ or quotes reach systemd as they are (how
// systemd reads them back: TestServiceUnitRoundTrips).
func TestServiceUnitQuoting(t *testing.T) {
	unit, err := serviceUnit(`/home/a b/100%/untether`, `/c d/$HOME/un"tether.toml`, "/x y:/usr/bin")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`ExecStart="/home/a b/100%%/untether" run --config "/c d/$$HOME/un\"tether.toml"` + "\n",
		`Environment="PATH=/x y:/usr/bin"` + "\n",
	} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %s:\n%s", want, unit)
		}
	}
}

// A config that does not load makes no unit: the service would fail.
func TestServiceInstallBadConfig(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "untether.toml")
	os.WriteFile(config, []byte("[telegram]\nbot_token = \"1:x\"\n"), 0o600)
	err := installService(context.Background(), serviceFlags{config: config}, "/bin/untether", func(string) string { return "" }, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "the service would not start") || !strings.Contains(err.Error(), "allowed_user_ids") {
		t.Errorf("err = %v", err)
	}
}

// A token only in the environment is not in the service's: install says so.
func TestServiceInstallTokenFromEnv(t *testing.T) {
	config, claude, xdg := serviceEnv(t, "home")
	text, err := configText("https://api.telegram.org", "", 5150, claude, filepath.Join(filepath.Dir(config), "work"))
	if err != nil {
		t.Fatal(err)
	}
	if err := writeConfig(config, text); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"XDG_CONFIG_HOME": xdg, envBotToken: "7000000001:AAservice-test-token"}
	var out strings.Builder
	if err := installService(context.Background(), serviceFlags{config: config}, "/bin/untether", func(k string) string { return env[k] }, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "note: the bot token comes from $"+envBotToken+", which the service does not have") {
		t.Errorf("output: %s", out.String())
	}
}
