package runner

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/creack/pty"
)

// StartOneShot runs one turn: the prompt is an argument and stdin is a PTY.
// Measured: with a pipe on stdin the CLI waits 3 s for input before it
// starts; with a terminal it starts at once. There is no control channel,
// so Send, Allow, Deny, Interrupt and SetPermissionMode return ErrNoControl;
// Close ends the turn early.
func StartOneShot(ctx context.Context, opts Options, prompt string) (*Session, error) {
	if prompt == "" {
		return nil, errors.New("one-shot run needs a prompt")
	}
	opts = opts.withDefaults()
	opts.Mode = OneShot
	return start(ctx, opts, prompt)
}

func openPTY() (master, tty *os.File, err error) {
	master, tty, err = pty.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("pty: %w", err)
	}
	return master, tty, nil
}
