package web_test

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram/tgtest"
)

// The web view's figures for docs/performance.md, on loopback, with the
// real bot (fake Bot API, scripted engine) and Go's own HTTP client
// reading the server-sent events:
//
//	go test ./web -run '^$' -bench 'SSE|Pages' -benchtime 500x
//
// BenchmarkSSEDelta: how long after a streamed delta reaches the bot (the
// engine hands it over) an open chat page has it. BenchmarkPages: what 20
// open chat pages cost in memory.

// signedIn is an HTTP client signed in as the e2e's user.
func (e *e2e) signedIn(t testing.TB) *http.Client {
	t.Helper()
	return e.signedInAs(t, e.user.ID, "Alice")
}

// signedInAs is an HTTP client signed in as userID.
func (e *e2e) signedInAs(t testing.TB, userID int64, name string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	link, err := e.web.LoginURL(userID, name)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(link)
	resp, err := c.PostForm(e.base+"/login", url.Values{"t": {u.Query().Get("t")}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("sign-in landed on %d", resp.StatusCode)
	}
	return c
}

// events opens the chat page's event stream; each message (an event's
// data lines joined) comes on the channel.
func (e *e2e) events(t testing.TB, c *http.Client) (<-chan string, func()) {
	t.Helper()
	resp, err := c.Get(e.base + "/chat/" + strconv.FormatInt(e.user.ID, 10) + "/events")
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan string, 1024)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 4096), 1<<24) // starts small and grows with the page
		var b strings.Builder
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				out <- b.String()
				b.Reset()
				continue
			}
			b.WriteString(strings.TrimPrefix(line, "data: "))
			b.WriteByte('\n')
		}
	}()
	return out, func() { resp.Body.Close() }
}

var marker = regexp.MustCompile(`\[d(\d+)\]`)

func BenchmarkSSEDelta(b *testing.B) {
	n := b.N
	sent := make([]atomic.Int64, n)   // when delta i was handed to the bot
	const gap = 20 * time.Millisecond // Claude streams a delta every 20-50 ms
	e := newE2E(b, func(tr *enginetest.Turn) {
		tr.Start("m")
		for i := range n {
			sent[i].Store(time.Now().UnixNano())
			tr.Emit(engine.Text{MessageID: "msg-1", Text: fmt.Sprintf("[d%d] ", i), Partial: true})
			time.Sleep(gap)
		}
		tr.Complete("streamed")
	})
	e.serve()
	c := e.signedIn(b)
	evs, stop := e.events(b, c)
	defer stop()
	<-evs // the page as it stands
	b.ResetTimer()
	e.tg.SendMessage(e.user, tgtest.PrivateChat(e.user), "stream")
	lat := make([]time.Duration, 0, n)
	seen := -1
	deadline := time.After(time.Duration(n)*gap + 2*time.Minute) // a hang's bound
	for seen < n-1 {
		select {
		case page, ok := <-evs:
			if !ok {
				b.Fatal("the event stream ended")
			}
			now := time.Now()
			top := -1
			for _, m := range marker.FindAllStringSubmatch(page, -1) {
				if i, _ := strconv.Atoi(m[1]); i > top {
					top = i
				}
			}
			for i := seen + 1; i <= top; i++ { // coalesced deltas arrive together
				lat = append(lat, now.Sub(time.Unix(0, sent[i].Load())))
			}
			seen = max(seen, top)
		case <-deadline:
			b.Fatalf("%d of %d deltas reached the page", seen+1, n)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(0, "ns/op") // the wall time is the script's pacing
}

// memory is the heap in use after a collection, and the process's RSS.
func memory() (heap, rss uint64) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if s, err := os.ReadFile("/proc/self/status"); err == nil {
		for line := range strings.SplitSeq(string(s), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseUint(f[1], 10, 64)
				rss = kb << 10
			}
		}
	}
	return m.HeapInuse, rss
}

// BenchmarkPages opens 20 chat pages (each its own sign-in, connection and
// event stream) and measures the process before and after: the pages'
// server side, and this test's 20 clients too (an upper bound). The heap
// is the mean of the rounds; the RSS is the first round's (later rounds
// reuse what it took from the system).
func BenchmarkPages(b *testing.B) {
	const pages = 20
	e := newE2E(b, nil)
	e.serve()
	clients := make([]*http.Client, pages)
	for i := range clients {
		clients[i] = e.signedIn(b)
	}
	var heapMB, rssMB float64
	for i := range b.N {
		heap0, rss0 := memory()
		var stops []func()
		for _, c := range clients {
			evs, stop := e.events(b, c)
			<-evs
			stops = append(stops, stop)
		}
		heap1, rss1 := memory()
		heapMB += (float64(heap1) - float64(heap0)) / (1 << 20)
		if i == 0 { // later rounds reuse the pages the first one took from the system
			rssMB = (float64(rss1) - float64(rss0)) / (1 << 20)
		}
		for _, stop := range stops {
			stop()
		}
	}
	b.ReportMetric(heapMB/float64(b.N), "heap-MB/20pages")
	b.ReportMetric(rssMB, "rss-MB/20pages")
}
