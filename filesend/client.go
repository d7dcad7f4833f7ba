package filesend

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"
)

// ReachWait is how long Send waits for a bot that does not listen: one
// restarting while a held Claude runs on (docs/durability.md) listens
// again at the same socket within a second or so.
const (
	ReachWait  = 30 * time.Second
	reachEvery = 100 * time.Millisecond
)

// Send asks the bot listening on socket to send the file at path to the
// session's chat, and returns its answer. An error means the bot could not
// be asked (not running for ReachWait, or it hung up): the file was not
// sent.
func Send(ctx context.Context, socket, secret, path, caption string) (Result, error) {
	return send(ctx, socket, secret, path, caption, ReachWait)
}

func send(ctx context.Context, socket, secret, path, caption string, wait time.Duration) (Result, error) {
	conn, err := reach(ctx, socket, wait)
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

// reach dials socket, again while nothing listens there (no socket, or a
// socket left by a bot that stopped), for up to wait.
func reach(ctx context.Context, socket string, wait time.Duration) (net.Conn, error) {
	var d net.Dialer
	deadline := time.Now().Add(wait)
	for {
		conn, err := d.DialContext(ctx, "unix", socket)
		if err == nil || !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, syscall.ENOENT) || !time.Now().Before(deadline) {
			return conn, err
		}
		t := time.NewTimer(min(reachEvery, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, err
		case <-t.C:
		}
	}
}
