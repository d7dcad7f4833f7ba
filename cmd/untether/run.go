package main

import (
	"context"
	"errors"
	"io"
)

// cmdRun starts the bot.
func cmdRun(ctx context.Context, args []string, stderr io.Writer) error {
	if _, err := parseFlags("run", args, stderr); err != nil {
		return err
	}
	usage(stderr)
	return errors.New("the Telegram bot is not built yet (issue 3); only the runner exists")
}

func cmdDoctor(ctx context.Context, args []string, stdout io.Writer) error {
	if _, err := parseFlags("doctor", args, stdout); err != nil {
		return err
	}
	return errors.New("doctor is not built yet")
}
