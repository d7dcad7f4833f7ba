package filesend

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
)

// Send asks the bot listening on socket to send the file at path to the
// session's chat, and returns its answer. An error means the bot could not
// be asked (not running, or it hung up): the file was not sent.
func Send(ctx context.Context, socket, secret, path, caption string) (Result, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return Result{}, fmt.Errorf("reaching the untether bot: %w", err)
	}
	defer conn.Close()
	// A cancelled tool call (the user pressed Cancel) ends the wait; the
	// bot finishes a delivery it started.
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	data, err := json.Marshal(request{Secret: secret, Path: path, Caption: caption})
	if err != nil {
		return Result{}, fmt.Errorf("encoding the request: %w", err)
	}
	if _, err := conn.Write(append(data, '\n')); err != nil {
		return Result{}, fmt.Errorf("asking the untether bot: %w", err)
	}
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("waiting for the untether bot: %w", ctx.Err())
		}
		return Result{}, fmt.Errorf("waiting for the untether bot: %w", err)
	}
	var r Result
	if err := json.Unmarshal(line, &r); err != nil {
		return Result{}, fmt.Errorf("the untether bot's answer: %w", err)
	}
	return r, nil
}
