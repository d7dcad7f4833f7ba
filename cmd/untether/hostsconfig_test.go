package main

import (
	"strings"
	"testing"
)

// [hosts.NAME] and [claude] host: a good host is read as written; each
// mistake is refused with the key and what to do.
func TestHostsConfig(t *testing.T) {
	cfg, _, err := load(t, map[string]string{
		"claude.host":                 `"box"`,
		"hosts.box.ssh":               `"me@box.example"`,
		"hosts.box.ssh_args":          `["-p", "2222"]`,
		"hosts.box.claude":            `"/home/me/.local/bin/claude"`,
		"hosts.box.working_dir":       `"/home/me/code"`,
		"hosts.box.project_roots":     `["/home/me/code"]`,
		"hosts.box.max_live_sessions": `3`,
	})
	if err != nil {
		t.Fatal(err)
	}
	box := cfg.Hosts["box"]
	if cfg.Claude.Host != "box" || box.SSH != "me@box.example" || strings.Join(box.SSHArgs, " ") != "-p 2222" ||
		box.Claude != "/home/me/.local/bin/claude" || box.WorkingDir != "/home/me/code" || box.MaxLiveSessions != 3 {
		t.Errorf("read %+v, host %q", box, cfg.Claude.Host)
	}

	for _, c := range []struct {
		name string
		kv   map[string]string
		want string
	}{
		{"unknown default host", map[string]string{"claude.host": `"nas"`}, `[claude] host: "nas" is neither "local" nor a [hosts.NAME]`},
		{"no destination", map[string]string{"hosts.box.working_dir": `"/x"`}, "[hosts.box] ssh: must name the destination"},
		{"an option as destination", map[string]string{"hosts.box.ssh": `"-oProxyCommand=touch /tmp/x"`, "hosts.box.working_dir": `"/x"`},
			"is not a destination (options go in ssh_args)"},
		{"no working_dir", map[string]string{"hosts.box.ssh": `"box"`}, "[hosts.box] working_dir: must be set"},
		{"relative working_dir", map[string]string{"hosts.box.ssh": `"box"`, "hosts.box.working_dir": `"code"`}, `"code" is not an absolute path`},
		{"named local", map[string]string{"hosts.local.ssh": `"box"`, "hosts.local.working_dir": `"/x"`}, "a host's name is"},
		{"bad name", map[string]string{"hosts.Box.ssh": `"box"`, "hosts.Box.working_dir": `"/x"`}, "a host's name is"},
		{"negative cap", map[string]string{"hosts.box.ssh": `"box"`, "hosts.box.working_dir": `"/x"`, "hosts.box.max_live_sessions": "-1"}, "is below 0"},
		{"agent forwarding", map[string]string{"hosts.box.ssh": `"box"`, "hosts.box.working_dir": `"/x"`, "hosts.box.ssh_args": `["-A"]`},
			"[hosts.box] ssh_args: -A is refused: it forwards your ssh agent"},
		{"a forward by -o", map[string]string{"hosts.box.ssh": `"box"`, "hosts.box.working_dir": `"/x"`, "hosts.box.ssh_args": `["-o", "RemoteForward=/a /b"]`},
			"[hosts.box] ssh_args: -o RemoteForward is refused"},
		{"unknown key", map[string]string{"hosts.box.ssh": `"box"`, "hosts.box.working_dir": `"/x"`, "hosts.box.password": `"x"`}, "unknown keys"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := load(t, c.kv)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestDefaultMaxLive(t *testing.T) {
	for _, c := range []struct {
		gib  int64
		want int
	}{{1, 2}, {4, 4}, {24, 24}, {256, 32}} {
		if got := defaultMaxLive(c.gib << 30); got != c.want {
			t.Errorf("defaultMaxLive(%d GiB) = %d, want %d", c.gib, got, c.want)
		}
	}
}
