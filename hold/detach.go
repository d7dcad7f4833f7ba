package hold

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// detach starts the holder of cfg as a process of its own (this binary,
// `hold`, in a session of its own, its stdin, stdout and stderr none of
// ours) and returns its Ready line, naming it; this process then exits.
// Whatever waits for this one (host/ssh's agent, and the ssh session it
// runs in) is not kept: the holder is left to init.
func detach(cfg Config) Ready {
	self, err := os.Executable()
	if err != nil {
		return Ready{Error: "find the holder's binary: " + err.Error()}
	}
	cfg.Detach = false
	in, err := json.Marshal(cfg)
	if err != nil {
		return Ready{Error: "encode the holder's config: " + err.Error()}
	}
	cmd := exec.Command(self, "hold")
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = os.Environ() // the machine's login environment, which the CLI's is laid over
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return Ready{Error: "holder pipe: " + err.Error()}
	}
	if err := cmd.Start(); err != nil {
		return Ready{Error: "start the holder: " + err.Error()}
	}
	got := readReady(out)
	t := time.NewTimer(spawnWait)
	defer t.Stop()
	select {
	case r := <-got:
		if r.Error != "" {
			_ = cmd.Wait()
			return r
		}
		r.Holder = cmd.Process.Pid
		_ = cmd.Process.Release() // init reaps it
		return r
	case <-t.C:
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return Ready{Error: "the holder did not start in time"}
	}
}
