package host

import (
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// Start starts c here, in its own process group, so that a signal to the
// group reaches every tool the process started in it.
func (Local) Start(ctx context.Context, c Cmd) (Process, error) {
	cmd := exec.CommandContext(ctx, c.Path, c.Args...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// ctx ending stops the helpers the process started too, as one group.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = c.WaitDelay
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return localProcess{cmd}, nil
}

func (Local) LookPath(_ context.Context, name string) (string, error) { return exec.LookPath(name) }

// Descendants reads /proc (Linux; elsewhere the list is empty).
func (Local) Descendants(_ context.Context, pid int) ([]int, error) {
	return below(readProcs(), pid), nil
}

// Kill signals each pid; one already gone is skipped. A pid recycled
// since the caller listed it is possible in principle, not within the
// seconds a close takes.
func (Local) Kill(_ context.Context, pids []int, sig syscall.Signal) error {
	for _, p := range pids {
		_ = syscall.Kill(p, sig)
	}
	return nil
}

func (Local) TreeCPU(_ context.Context, pid int) (time.Duration, error) { return treeCPU(pid) }

type localProcess struct{ cmd *exec.Cmd }

func (p localProcess) Pid() int { return p.cmd.Process.Pid }

func (p localProcess) Signal(sig syscall.Signal) error { return syscall.Kill(-p.cmd.Process.Pid, sig) }

func (p localProcess) Wait() (Exit, error) {
	err := p.cmd.Wait()
	ex := Exit{Code: -1}
	if st := p.cmd.ProcessState; st != nil {
		ex.Code = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			ex.Signal = ws.Signal().String()
		}
	}
	if _, ok := errors.AsType[*exec.ExitError](err); ok {
		err = nil // told by ex
	}
	return ex, err
}
