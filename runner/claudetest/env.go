package claudetest

import (
	"os"
	"testing"
)

// BinaryEnv names the variable holding the path of the claude binary used by
// contract tests.
const BinaryEnv = "UNTETHER_TEST_CLAUDE"

// Binary returns the claude binary to run contract tests with, from
// UNTETHER_TEST_CLAUDE. The test is skipped when the variable is empty and
// fails when it names something that is not an executable file.
func Binary(t testing.TB) string {
	t.Helper()
	path := os.Getenv(BinaryEnv)
	if path == "" {
		t.Skip("set UNTETHER_TEST_CLAUDE to the path of a claude binary to run contract tests (.ci/install-claude.sh prints it)")
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("%s: %v", BinaryEnv, err)
	}
	if info.IsDir() || info.Mode().Perm()&0o111 == 0 {
		t.Fatalf("%s=%s is not an executable file", BinaryEnv, path)
	}
	return path
}

// Env builds the whole environment for a claude process that must talk only
// to the fake API at apiURL: a fresh HOME (returned too), a test API key, and
// the switches that turn off update checks, telemetry and other traffic.
// Nothing else is inherited from the parent except PATH (to find a shell and
// tools) and TMPDIR, so real credentials and CLAUDE_* settings cannot leak in.
func Env(t testing.TB, apiURL string) (env []string, home string) {
	t.Helper()
	home = t.TempDir()
	return envFor(home, apiURL), home
}

func envFor(home, apiURL string) []string {
	env := []string{
		"HOME=" + home,
		"ANTHROPIC_BASE_URL=" + apiURL,
		"ANTHROPIC_API_KEY=test-key",
		// Without this the CLI also resolves and pings Anthropic's hosts.
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
	}
	for _, key := range []string{"PATH", "TMPDIR"} {
		if v, ok := os.LookupEnv(key); ok {
			env = append(env, key+"="+v)
		}
	}
	return env
}
