// Package filesend is the bot's side of the send_file tool. Claude Code
// starts `untether mcp` (the MCP server) for each session from a config
// file the bot writes; that process asks the running bot, over a unix
// socket and with the session's secret, to send a file to the chat. The
// bot checks the path with the session's path rule (package scope), reads
// the file, and hands it, with the other files of the same session that
// arrive at the same moment, to a Deliver function: files Claude sends
// together can go as one album. It knows no Telegram types.
package filesend

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/untether/untether/scope"
	"github.com/untether/untether/token"
)

// Names Claude Code sees: the server, its tool, and the tool as an
// --allowedTools entry (mcp__<server>__<tool>).
const (
	ServerName  = "untether"
	ToolName    = "send_file"
	AllowedTool = "mcp__" + ServerName + "__" + ToolName
	// SecretEnv carries the session's secret to `untether mcp`, in the
	// MCP config's env for that server only (Claude's own tools never see
	// it). SocketFlag names the bot's socket on its command line.
	SecretEnv  = "UNTETHER_MCP_SECRET"
	SocketFlag = "--socket"
)

// Defaults for Options fields left zero.
const (
	DefaultGather  = 300 * time.Millisecond
	DefaultTimeout = 5 * time.Minute
	socketName     = "bot.sock"
	// maxSocketPath is what sun_path holds on Linux, less its NUL.
	maxSocketPath = 107
	// maxRequest bounds one request line: a path and a caption.
	maxRequest = 64 << 10
	// maxConns bounds the requests handled at once.
	maxConns = 32
)

// File is one file to deliver.
type File struct {
	Path    string // absolute, links resolved: the file that was read
	Name    string // its base name
	Data    []byte
	Caption string // as Claude gave it
}

// Deliver sends files that arrived together for the session key. It
// returns one error per file, in order (nil: delivered). An error's text
// reaches Claude as the tool's result.
type Deliver func(ctx context.Context, key string, files []File) []error

// Session is what one Claude process may send: the files its path rule
// holds inside.
type Session struct {
	Key  string
	Rule scope.Rule
}

// Options configure a Server.
type Options struct {
	// Dir is the server's private folder (created 0700): the socket and
	// the per-session configs, which hold secrets.
	Dir string
	// Binary is the untether executable Claude Code starts as the MCP
	// server (`Binary mcp --socket ...`).
	Binary string
	// MaxSize is the largest file sent, in bytes (0: no limit); a larger
	// one is refused with a message naming the limit.
	MaxSize int64
	// Gather is how long the first file of a session waits for others to
	// go with it (files Claude sends in parallel); default DefaultGather.
	Gather time.Duration
	// Timeout bounds one delivery; default DefaultTimeout.
	Timeout time.Duration
	Logger  *slog.Logger
}

// Server listens on the socket and serves send requests.
type Server struct {
	opts   Options
	socket string
	ln     net.Listener
	log    *slog.Logger
	slots  chan struct{}

	mu       sync.Mutex
	sessions map[[32]byte]Session // by the secret's hash
	batches  map[string]*batch    // by session key, while gathering
	deliver  Deliver
	closed   bool
	wg       sync.WaitGroup
}

// Listen creates Dir, removes what a previous run left there (a socket,
// session configs) and listens on its socket, which only this user may
// open (0600 in a 0700 folder).
func Listen(opts Options) (*Server, error) {
	if opts.Gather <= 0 {
		opts.Gather = DefaultGather
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Binary == "" || !filepath.IsAbs(opts.Binary) {
		return nil, fmt.Errorf("filesend: the untether binary must be an absolute path, not %q", opts.Binary)
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("filesend: folder: %w", err)
	}
	socket := filepath.Join(dir, socketName)
	if len(socket) > maxSocketPath {
		return nil, fmt.Errorf("filesend: the socket path %s is longer than a unix socket allows (%d bytes): move the state file to a shorter path", socket, maxSocketPath)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("filesend: creating %s: %w", dir, err)
	}
	// MkdirAll leaves an existing folder as it is.
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, fmt.Errorf("filesend: %w", err)
	}
	if err := clean(dir); err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", socket)
	if err != nil {
		return nil, fmt.Errorf("filesend: %w", err)
	}
	if err := os.Chmod(socket, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("filesend: %w", err)
	}
	opts.Dir = dir
	return &Server{opts: opts, socket: socket, ln: ln, log: opts.Logger, slots: make(chan struct{}, maxConns),
		sessions: map[[32]byte]Session{}, batches: map[string]*batch{}}, nil
}

// clean removes a socket and session configs left by a run that did not
// stop cleanly. Another bot cannot be using them: the state file they
// belong to is locked by this one.
func clean(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("filesend: %w", err)
	}
	for _, e := range entries {
		if e.Name() == socketName || strings.HasSuffix(e.Name(), ".json") {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("filesend: removing a leftover: %w", err)
			}
		}
	}
	return nil
}

// Socket is the path of the server's socket.
func (s *Server) Socket() string { return s.socket }

// Serve answers requests until ctx ends or Close is called, handing files
// to deliver. It returns once every request it took is answered.
func (s *Server) Serve(ctx context.Context, deliver Deliver) error {
	s.mu.Lock()
	s.deliver = deliver
	s.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { _ = s.Close() })
	defer stop()
	defer s.wg.Wait()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return nil
			}
			return fmt.Errorf("filesend: accept: %w", err)
		}
		select {
		case s.slots <- struct{}{}:
		default:
			reply(conn, Result{Text: "Not sent: the bot is busy sending other files; try again."})
			conn.Close()
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { <-s.slots }()
			s.handle(context.WithoutCancel(ctx), conn)
		}()
	}
}

// Close stops listening and removes the socket. Requests being handled
// finish (Serve waits for them).
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	err := s.ln.Close()
	_ = os.Remove(s.socket)
	return err
}

// Grant is one Claude process's permission to send files: its secret and
// the MCP config that hands the secret to `untether mcp`.
type Grant struct {
	s      *Server
	hash   [32]byte
	config string
	once   sync.Once
	// remove removes config where it was put (this machine: os.Remove).
	remove func(string) error
}

// ConfigPath is the MCP config file to pass to Claude Code (--mcp-config).
func (g *Grant) ConfigPath() string { return g.config }

// Key names the grant without its secret (the hex SHA-256 of it): what a
// bot keeps of a process that outlives it, to Restore its grant after a
// restart. It does not let anyone send.
func (g *Grant) Key() string { return hex.EncodeToString(g.hash[:]) }

// Restore gives back the grant of a process a previous bot started (a
// held session, docs/durability.md): that process's `untether mcp` still
// has its secret and reaches this server at the same socket (the same
// folder). key is the old grant's Key; no config file is written (the
// process has read its own), and Close only revokes the secret.
func (s *Server) Restore(sess Session, key string) (*Grant, error) {
	b, err := hex.DecodeString(key)
	if err != nil || len(b) != sha256.Size {
		return nil, fmt.Errorf("filesend: restoring a grant: %q is no grant key", key)
	}
	g := &Grant{s: s, remove: func(string) error { return nil }}
	copy(g.hash[:], b)
	s.mu.Lock()
	s.sessions[g.hash] = sess
	s.mu.Unlock()
	return g, nil
}

// Close revokes the secret and removes the config file.
func (g *Grant) Close() {
	g.once.Do(func() {
		g.s.mu.Lock()
		delete(g.s.sessions, g.hash)
		g.s.mu.Unlock()
		remove := g.remove
		if remove == nil {
			remove = os.Remove
		}
		if err := remove(g.config); err != nil && !errors.Is(err, os.ErrNotExist) {
			g.s.log.Warn("could not remove an MCP config", "path", g.config, "err", err)
		}
	})
}

// Open mints a secret for a Claude process of sess and writes the MCP
// config naming `untether mcp` with it (0600, in the private folder).
func (s *Server) Open(sess Session) (*Grant, error) {
	secret := token.New()
	g := &Grant{s: s, hash: sha256.Sum256([]byte(secret)),
		config: filepath.Join(s.opts.Dir, "session-"+token.New()+".json")}
	data, err := mcpConfig(s.opts.Binary, s.socket, secret)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(g.config, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("filesend: MCP config: %w", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(g.config)
		return nil, fmt.Errorf("filesend: MCP config: %w", err)
	}
	s.mu.Lock()
	s.sessions[g.hash] = sess
	s.mu.Unlock()
	return g, nil
}

// mcpConfig is the MCP config that starts `binary mcp` on socket with
// the session's secret.
func mcpConfig(binary, socket, secret string) ([]byte, error) {
	data, err := json.Marshal(map[string]any{"mcpServers": map[string]any{ServerName: map[string]any{
		"type":    "stdio",
		"command": binary,
		"args":    []string{"mcp", SocketFlag, socket},
		"env":     map[string]string{SecretEnv: secret},
	}}})
	if err != nil {
		return nil, fmt.Errorf("filesend: MCP config: %w", err)
	}
	return data, nil
}

// Elsewhere is another machine a Claude process to grant runs on: the
// untether binary there, the path there of a socket that leads to this
// server's (forwarded over the connection), and how to put a file there
// (0600, in a private folder) and remove it.
type Elsewhere struct {
	Binary string
	Socket string
	Put    func(data []byte) (path string, err error)
	Remove func(path string) error
}

// OpenElsewhere is Open for a process on another machine: its MCP config
// is put there and names that machine's untether and socket. The session's
// rule decides as for any other (its Host is that machine's).
func (s *Server) OpenElsewhere(sess Session, e Elsewhere) (*Grant, error) {
	secret := token.New()
	data, err := mcpConfig(e.Binary, e.Socket, secret)
	if err != nil {
		return nil, err
	}
	path, err := e.Put(data)
	if err != nil {
		return nil, fmt.Errorf("filesend: putting the MCP config there: %w", err)
	}
	g := &Grant{s: s, hash: sha256.Sum256([]byte(secret)), config: path, remove: e.Remove}
	s.mu.Lock()
	s.sessions[g.hash] = sess
	s.mu.Unlock()
	return g, nil
}

// session finds the session a secret belongs to.
func (s *Server) session(secret string) (Session, bool) {
	if secret == "" {
		return Session{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[sha256.Sum256([]byte(secret))]
	return sess, ok
}
