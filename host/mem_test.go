package host_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/untether/untether/host"
)

func TestParseMemTotal(t *testing.T) {
	got, err := host.ParseMemTotal([]byte("MemFree:  100 kB\nMemTotal:       16318460 kB\n"))
	if err != nil || got != 16318460*1024 {
		t.Fatalf("ParseMemTotal = %d, %v; want %d", got, err, 16318460*1024)
	}
	if _, err := host.ParseMemTotal([]byte("MemFree: 1 kB\n")); err == nil {
		t.Error("no MemTotal line: no error")
	}
}

func TestLocalMemTotal(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("Linux and macOS only")
	}
	got, err := host.Local{}.MemTotal(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got < 64<<20 || got > 1<<50 {
		t.Errorf("MemTotal = %d bytes: not a machine's memory", got)
	}
}
