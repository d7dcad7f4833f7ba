package runner

import (
	"context"
	"testing"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/host/hosttest"
)

// A session offers the CPU time of its process tree (engine.CPUMeter),
// read through the host it runs on.
func TestSessionTreeCPUAsksItsHost(t *testing.T) {
	rec := &hosttest.Recorder{}
	s := startFake(t, "echo", func(o *Options) { o.Host = rec })
	var conn engine.Conn = s
	m, ok := conn.(engine.CPUMeter)
	if !ok {
		t.Fatal("runner.Session is no engine.CPUMeter")
	}
	if _, err := m.TreeCPU(context.Background()); err != nil {
		t.Fatalf("TreeCPU of a live CLI: %v", err)
	}
	if !rec.Called("TreeCPU") {
		t.Errorf("the host was not asked: %q", rec.Calls())
	}
}
