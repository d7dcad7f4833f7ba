package host

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The process table of this machine, from /proc (Linux): the CPU time of
// a process and of everything it started (the bot's stall watchdog tells a
// busy tool, a build, from one waiting on something that will not come, a
// password prompt or a hung MCP server, by whether this grows), and the
// processes below one (the runner's close finds the tools Claude started
// in sessions of their own).

// userHZ is the unit of the times in /proc/<pid>/stat. The kernel exports
// them in USER_HZ, which is 100 on every Linux architecture Go supports
// (sysconf(_SC_CLK_TCK) answers the same, without cgo we cannot ask).
const userHZ = 100

// procStat is what the bot reads of one /proc/<pid>/stat line.
type procStat struct {
	ppid int
	// ticks is utime+stime+cutime+cstime: the process's own CPU time and
	// that of its children it has waited for, so a compiler that ran and
	// ended still counts, in the make that reaped it.
	ticks int64
}

// readProcs reads every process's stat line. Processes that end while it
// reads are skipped.
func readProcs() map[int]procStat {
	files, _ := filepath.Glob("/proc/[0-9]*/stat")
	out := make(map[int]procStat, len(files))
	for _, f := range files {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if err != nil {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if st, ok := parseStat(b); ok {
			out[pid] = st
		}
	}
	return out
}

// parseStat reads a stat line. The command name (field 2) may hold spaces
// and parentheses, so fields are counted from its last ')'.
func parseStat(b []byte) (procStat, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 > len(b) {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+2:]))
	// After the name: state ppid pgrp session tty_nr tpgid flags minflt
	// cminflt majflt cmajflt utime stime cutime cstime ...
	if len(f) < 15 {
		return procStat{}, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return procStat{}, false
	}
	var ticks int64
	for _, s := range f[11:15] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return procStat{}, false
		}
		ticks += n
	}
	return procStat{ppid: ppid, ticks: ticks}, true
}

// below lists the pids under pid in procs, breadth first.
func below(procs map[int]procStat, pid int) []int {
	children := map[int][]int{}
	for p, st := range procs {
		children[st.ppid] = append(children[st.ppid], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// treeCPU returns the CPU time pid and every process below it have used
// so far (user and system, including children they reaped). Bash tools run
// in sessions of their own but are still below the CLI. An error means pid
// is gone (or this is not Linux).
func treeCPU(pid int) (time.Duration, error) {
	if pid <= 0 {
		return 0, fmt.Errorf("tree cpu: no process (pid %d)", pid)
	}
	procs := readProcs()
	root, ok := procs[pid]
	if !ok {
		return 0, fmt.Errorf("tree cpu: process %d not found in /proc", pid)
	}
	ticks := root.ticks
	for _, p := range below(procs, pid) {
		ticks += procs[p].ticks
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}
