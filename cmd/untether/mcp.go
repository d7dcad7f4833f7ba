package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/untether/untether/filesend"
)

// `untether mcp` is the MCP server Claude Code starts for each session
// from the config the bot writes (package filesend). It offers one tool,
// send_file, and passes each call to the running bot over its unix socket
// with the session's secret; the bot checks the path and sends the file.
// It uses the official Go MCP SDK (github.com/modelcontextprotocol/go-sdk)
// for the protocol: kept by the MCP project with Google, it follows the
// spec's versions and does the handshake, schemas and cancellation, which
// a hand-written JSON-RPC loop would have to keep up with by itself.

// mcpInstructions reach Claude with the server's tool list.
const mcpInstructions = "The user talks to you from Telegram and cannot see this machine's screen or files. " +
	"When they ask for a file, or when showing one helps (a screenshot, chart, report, log or build), " +
	"send it to their chat with send_file. Only files in the project (the working directory, the chat's " +
	"upload folder and the directories the owner listed) can be sent."

// sendFileIn is the tool's input; the jsonschema tags are the descriptions
// Claude reads.
type sendFileIn struct {
	Path    string `json:"path" jsonschema:"the file to send: absolute, or relative to the working directory"`
	Caption string `json:"caption,omitempty" jsonschema:"a short text shown under the file in the chat"`
}

// mcpCallLimit bounds one call: a delivery may wait for Telegram's rate
// limits, but never forever.
const mcpCallLimit = filesend.DefaultTimeout + time.Minute

func cmdMCP(ctx context.Context, args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) error {
	fs := flag.NewFlagSet("untether mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	socket := fs.String(filesend.SocketFlag[2:], "", "the bot's socket (set by the bot in the MCP config)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	secret := os.Getenv(filesend.SecretEnv)
	if *socket == "" || secret == "" || fs.NArg() > 0 {
		return fmt.Errorf("%w: untether mcp is started by Claude Code from the MCP config the bot writes for each session", errUsage)
	}
	return newMCPServer(*socket, secret).Run(ctx, &mcp.IOTransport{Reader: stdin, Writer: stdout})
}

// newMCPServer is the untether MCP server for one session.
func newMCPServer(socket, secret string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: filesend.ServerName, Title: "untether (Telegram)", Version: version},
		&mcp.ServerOptions{Instructions: mcpInstructions})
	mcp.AddTool(s, &mcp.Tool{
		Name: filesend.ToolName,
		Description: "Send a file from this machine to the user's Telegram chat: an image (png, jpg, webp, gif) " +
			"appears as a photo, anything else as a document (up to 50 MB). Files sent in parallel calls " +
			"arrive as one album. Only files inside the project can be sent.",
		// Read-only for Claude Code: it changes nothing on this machine,
		// and so the CLI runs parallel calls at once (measured), which lets
		// the bot send them as one album.
		Annotations: &mcp.ToolAnnotations{Title: "Send a file to the chat", ReadOnlyHint: true},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in sendFileIn) (*mcp.CallToolResult, any, error) {
		ctx, cancel := context.WithTimeout(ctx, mcpCallLimit)
		defer cancel()
		r, err := filesend.Send(ctx, socket, secret, in.Path, in.Caption)
		if err != nil {
			r = filesend.Result{Text: "Not sent: " + err.Error()}
		}
		// A refusal is a tool error: Claude reads it as the call failing.
		return &mcp.CallToolResult{IsError: !r.OK, Content: []mcp.Content{&mcp.TextContent{Text: r.Text}}}, nil, nil
	})
	return s
}
