package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/untether/untether/filesend"
	"github.com/untether/untether/scope"
)

// TestMCPSendFile: the MCP server offers send_file (path required, read
// only so parallel calls run at once) and passes each call to the bot's
// socket: a file inside is delivered, one outside comes back as a tool
// error naming the reason.
func TestMCPSendFile(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "chart.png"), []byte("png"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, err := filesend.Listen(filesend.Options{Dir: filepath.Join(dir, "mcp"), Binary: "/bin/untether",
		Gather: time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	delivered := make(chan filesend.File, 4)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_ = srv.Serve(ctx, func(_ context.Context, _ string, files []filesend.File) []error {
			for _, f := range files {
				delivered <- f
			}
			return make([]error, len(files))
		})
	}()
	grant, err := srv.Open(filesend.Session{Key: "1", Rule: scope.Rule{WorkDir: work}})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(filesend.SecretEnv, secretOf(t, grant.ConfigPath()))

	serverT, clientT := mcp.NewInMemoryTransports()
	go func() { _ = newMCPServer(srv.Socket(), os.Getenv(filesend.SecretEnv)).Run(ctx, serverT) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ServerInfo.Name; got != filesend.ServerName {
		t.Errorf("server name %q", got)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != filesend.ToolName || !tools.Tools[0].Annotations.ReadOnlyHint {
		t.Fatalf("tools = %+v", tools.Tools)
	}
	schema := tools.Tools[0].InputSchema.(map[string]any)
	if req, _ := schema["required"].([]any); len(req) != 1 || req[0] != "path" {
		t.Errorf("required = %v", schema["required"])
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: filesend.ToolName, Arguments: map[string]any{"path": "chart.png", "caption": "The chart"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(text(res), "Delivered "+filepath.Join(work, "chart.png")) {
		t.Errorf("result %+v %q", res, text(res))
	}
	if f := <-delivered; string(f.Data) != "png" || f.Caption != "The chart" {
		t.Errorf("delivered %+v", f)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: filesend.ToolName, Arguments: map[string]any{"path": "/etc/passwd"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "/etc/passwd is outside this session's project") {
		t.Errorf("outside: %+v %q", res, text(res))
	}
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// secretOf reads the secret a grant's MCP config hands `untether mcp`.
func secretOf(t *testing.T, config string) string {
	t.Helper()
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		MCPServers map[string]struct {
			Env map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return c.MCPServers[filesend.ServerName].Env[filesend.SecretEnv]
}
