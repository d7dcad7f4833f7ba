package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
)

// version is set at build time with -ldflags "-X main.version=..."; when
// it is not, the build info says what was built.
var version = ""

// buildVersion is untether's version as the build recorded it: the module
// version (v1.2.3 for a tagged commit, a pseudo-version from an untagged
// checkout, "(devel)" when the build was not stamped: -buildvcs=false)
// and, when Go stamped it, the VCS revision, its date and whether the tree
// had uncommitted changes.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return orDev(version)
	}
	return describeBuild(version, info)
}

func describeBuild(override string, info *debug.BuildInfo) string {
	v := override
	if v == "" {
		v = info.Main.Version
	}
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	var extra []string
	rev := settings["vcs.revision"]
	short := rev[:min(12, len(rev))]
	// A pseudo-version (v0.0.0-20260101120000-abcdef123456, what Go
	// stamps from an untagged checkout) already names the commit and time.
	if rev != "" && !strings.Contains(v, short) {
		extra = append(extra, short)
		if t := settings["vcs.time"]; t != "" {
			extra = append(extra, t)
		}
	}
	if settings["vcs.modified"] == "true" && !strings.HasSuffix(v, "+dirty") { // Go marks pseudo-versions so
		extra = append(extra, "modified")
	}
	if len(extra) > 0 {
		v += " (" + strings.Join(extra, ", ") + ")"
	}
	return v
}

func orDev(v string) string {
	if v == "" {
		return "dev"
	}
	return v
}

// cmdVersion prints untether's version and the Claude Code it would run:
// the config's [claude] binary when there is a config, else the one init
// would find.
func cmdVersion(ctx context.Context, args []string, stdout io.Writer) error {
	flags, err := parseFlags("version", args, stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "untether %s\n", buildVersion())
	bin, env, where := "", os.Environ(), ""
	path, err := ResolveConfigPath(flags.config)
	if err == nil {
		var cfg *Config
		if cfg, err = decodeConfig(path, os.Getenv); cfg != nil {
			bin, env, where = cfg.Claude.Binary, runnerOptions(cfg, nil).ChildEnv(), " ([claude] binary in "+cfg.Path+")"
			err = nil
		}
	}
	if bin == "" {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stdout, "config: %v\n", err)
		}
		found, tried := findClaude(defaultClaudeCandidates(ctx))
		if found == "" {
			fmt.Fprintf(stdout, "Claude Code: not found (looked in %s)\n", strings.Join(tried, ", "))
			return nil
		}
		bin = found
	}
	if p, err := exec.LookPath(bin); err == nil {
		bin = p
	}
	v, _, err := claudeVersion(ctx, bin, env, claudeVersionWait)
	if err != nil {
		fmt.Fprintf(stdout, "Claude Code: %v%s\n", err, where)
		return nil
	}
	fmt.Fprintf(stdout, "Claude Code %s: %s%s\n", shortClaudeVersion(v), bin, where)
	return nil
}

// shortClaudeVersion drops the name the CLI adds to its version.
func shortClaudeVersion(v string) string { return strings.TrimSuffix(v, " (Claude Code)") }
