package main

import (
	"context"
	"debug/buildinfo"
	"log/slog"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestDescribeBuild(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, c := range []struct {
		name, override, version string
		settings                []debug.BuildSetting
		want                    string
	}{
		{name: "go install @v1.2.0", version: "v1.2.0", want: "v1.2.0"},
		{name: "go install @main", version: "v0.0.0-20260101120000-abcdef123456",
			settings: vcs("vcs.revision", "abcdef1234567890", "vcs.time", "2026-01-01T12:00:00Z"),
			want:     "v0.0.0-20260101120000-abcdef123456"},
		{name: "untagged checkout, changed", version: "v0.0.0-20260101120000-abcdef123456+dirty",
			settings: vcs("vcs.revision", "abcdef1234567890", "vcs.modified", "true"),
			want:     "v0.0.0-20260101120000-abcdef123456+dirty"},
		{name: "checkout", version: "(devel)",
			settings: vcs("vcs.revision", "abcdef1234567890", "vcs.time", "2026-01-01T12:00:00Z", "vcs.modified", "true"),
			want:     "dev (abcdef123456, 2026-01-01T12:00:00Z, modified)"},
		{name: "no VCS stamp", version: "(devel)", want: "dev"},
		{name: "ldflags", override: "v9.0.0", version: "(devel)", settings: vcs("vcs.revision", "abcdef1234567890"),
			want: "v9.0.0 (abcdef123456)"},
	} {
		info := &debug.BuildInfo{Main: debug.Module{Version: c.version}, Settings: c.settings}
		if got := describeBuild(c.override, info); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// untether version names the Claude Code the config's binary is.
func TestVersionCommand(t *testing.T) {
	s := newDoctorSetup(t)
	path := s.write(t)
	var out strings.Builder
	if err := cmdVersion(context.Background(), []string{"--config", path}, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "untether ") ||
		lines[1] != "Claude Code 9.9.9: "+s.binary+" ([claude] binary in "+path+")" {
		t.Errorf("output:\n%s", out.String())
	}

	// Without a config: the claude init would find, here on PATH.
	t.Setenv("PATH", filepath.Dir(s.binary))
	out.Reset()
	if err := cmdVersion(context.Background(), []string{"--config", filepath.Join(t.TempDir(), "none.toml")}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Claude Code 9.9.9: "+s.binary+"\n") || strings.Contains(out.String(), "config:") {
		t.Errorf("output:\n%s", out.String())
	}
}

// builtVersion is the version the built binary at bin reports: its own
// build info read from the file, described the way buildVersion does at run
// time. How Go stamped the build (a pseudo-version from a clean clone,
// "(devel)" with -buildvcs=false, a dirty tree) depends on the machine and
// the checkout, so tests compute it instead of naming one. The tests build
// without -ldflags -X, so there is no override.
func builtVersion(t *testing.T, bin string) string {
	t.Helper()
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatalf("reading the build info of %s: %v", bin, err)
	}
	return describeBuild("", info)
}

// slogValue is how the bot's text log writes key=v (quoted when v has a
// space, as a version with a VCS suffix does).
func slogValue(key, v string) string {
	var b strings.Builder
	drop := func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && (a.Key == slog.TimeKey || a.Key == slog.LevelKey || a.Key == slog.MessageKey) {
			return slog.Attr{}
		}
		return a
	}
	slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{ReplaceAttr: drop})).Info("", key, v)
	return strings.TrimSpace(b.String())
}
