package codextest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Model is the model name the test config asks for.
const Model = "fake-model"

// Config is a config.toml for Codex pointed at baseURL (a fake on
// 127.0.0.1) with everything that would reach another server switched
// off. Measured with 0.171.0: with only the provider configured, Codex
// looks up github.com and api.github.com (its update check, plugins);
// with these settings it connects to nothing but the provider
// (TestNoConnectionLeavesLoopback in package codex checks it).
func Config(baseURL string) string {
	return fmt.Sprintf(`model = %q
model_provider = "fake"
check_for_update_on_startup = false
web_search = "disabled"

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
requires_openai_auth = false

[analytics]
enabled = false

[feedback]
enabled = false

[features]
apps = false
plugins = false
remote_plugin = false
plugin_sharing = false
browser_use = false
browser_use_external = false
computer_use = false
image_generation = false
in_app_updates = false
api_key_model_discovery = false
tool_suggest = false
skill_mcp_dependency_install = false
daemon_auto_start = false
`, Model, baseURL)
}

// Home makes a CODEX_HOME for one test with Config(a.BaseURL()) in it and
// returns its path. Codex writes its threads (sessions/) and the projects
// it was started in (a [projects] trust entry) there.
func (a *API) Home(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "codex-home")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(Config(a.BaseURL())), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}
