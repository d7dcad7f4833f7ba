package codex_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/codex"
	"github.com/untether/untether/engine"
)

// BenchmarkContractCodex measures the pinned Codex against the fake
// Responses API (which answers at once, like runner's benchmarks' fake
// Anthropic API), per operation, in ms, as runner's
// BenchmarkContractSSHvsLocal measures Claude Code: new_first_text (Start
// of a new thread to its first text), first_text (a live session: Send to
// the first text), press_final (Allow to the turn's result); and rss_mb,
// the resident memory of a live session's process tree (the node launcher
// and the native app-server) after its turns.
func BenchmarkContractCodex(b *testing.B) {
	r := newRig(b, nil)
	var seen []engine.Event
	warm := r.start(b, "")
	send(b, warm, "warm up")
	next[engine.TurnCompleted](b, warm, &seen)
	var newFirst, first, press time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		seen = seen[:0]
		began := time.Now()
		c := r.start(b, "")
		send(b, c, "hi")
		next[engine.Text](b, c, &seen)
		newFirst += time.Since(began)
		next[engine.TurnCompleted](b, c, &seen)
		b.StopTimer()
		_ = c.Close(context.Background())
		b.StartTimer()

		began = time.Now()
		send(b, warm, "hi again")
		next[engine.Text](b, warm, &seen)
		first += time.Since(began)
		next[engine.TurnCompleted](b, warm, &seen)

		send(b, warm, "run: echo bench > bench.txt")
		req := next[engine.ApprovalRequest](b, warm, &seen)
		allowed := time.Now()
		if err := warm.Allow(context.Background(), req.RequestID, nil, nil); err != nil {
			b.Fatal(err)
		}
		if tc := next[engine.TurnCompleted](b, warm, &seen); !tc.OK {
			b.Fatalf("the approved turn: %+v", tc)
		}
		press += time.Since(allowed)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(newFirst.Milliseconds())/n, "new_first_text_ms")
	b.ReportMetric(float64(first.Milliseconds())/n, "first_text_ms")
	b.ReportMetric(float64(press.Milliseconds())/n, "press_final_ms")
	pid := codex.PidForTest(warm)
	tree := treeRSS(b, pid)
	b.ReportMetric(float64(tree)/(1<<20), "rss_mb")
	// The node launcher's own share: the rest is the native app-server.
	b.ReportMetric(float64(rssOf(pid))/(1<<20), "launcher_rss_mb")
}

// treeRSS is the resident memory of pid and its descendants, in bytes
// (Linux /proc).
func treeRSS(tb testing.TB, pid int) int64 {
	tb.Helper()
	children := map[int][]int{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		tb.Skipf("no /proc: %v", err)
	}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut at its ')'.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		if f := strings.Fields(rest); len(f) > 1 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				children[pp] = append(children[pp], p)
			}
		}
	}
	var total int64
	for todo := []int{pid}; len(todo) > 0; {
		p := todo[0]
		todo = append(todo[1:], children[p]...)
		total += rssOf(p)
	}
	return total
}

// rssOf is one process's resident memory in bytes (0 when it is gone).
func rssOf(pid int) int64 {
	status, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
