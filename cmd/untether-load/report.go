package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// usage is the process's resource use (getrusage) at one moment.
type usage struct {
	cpu    time.Duration // user + system
	maxRSS int64         // bytes, the high-water mark
}

func usageNow() usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return usage{}
	}
	return usage{
		cpu:    time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		maxRSS: ru.Maxrss * 1024, // Linux reports KiB
	}
}

// since keeps the high-water mark (it cannot be reset) and subtracts CPU.
func (u usage) since(base usage) usage { return usage{cpu: u.cpu - base.cpu, maxRSS: u.maxRSS} }

// currentRSS reads the resident size now from /proc (Linux); 0 elsewhere.
func currentRSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// dist is a set of latency samples.
type dist []time.Duration

// pct is the nearest-rank percentile (p in 0..100); 0 for no samples.
func (d dist) pct(p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func ms(d time.Duration) int64 { return d.Milliseconds() }

type report struct {
	cfg        config
	elapsed    time.Duration // first user message to the last final
	use        usage
	turns      int // turns the users started
	results    int // turns the script completed
	lost       int
	final      [3]dist // private, group, all
	approval   dist
	firstText  [2]dist // first text delta → the user can read it: private, group
	followup   dist    // follow-up's message → final, minus Claude's time
	press      dist    // Approve pressed → final accepted
	calls      [2]dist // Bot API messages + edits + drafts per turn: short (follow-ups), long (the others); as counts
	actions    [2]dist // chat actions per turn, as counts
	waited     dist    // user message to final, for the table
	firstPart  dist    // result to the first part
	byParts    map[int]dist
	tooMany    int
	methods    map[string]methodCount
	edits      [2]int
	otherEdits int
	gaps       [2]dist
	conns      int
	privChats  int
	groupChats int
	starts     int
	goroutines int
}

func (d *driver) report(elapsed time.Duration, use usage) *report {
	rep := &report{cfg: d.cfg, use: use, tooMany: d.fake.RateLimited(), methods: map[string]methodCount{}, byParts: map[int]dist{},
		starts: d.eng.started(), goroutines: runtime.NumGoroutine()}
	r := d.rec
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.first.IsZero() && r.last.After(r.first) {
		elapsed = r.last.Sub(r.first)
	}
	rep.elapsed = elapsed
	for k, v := range r.methods {
		rep.methods[k] = *v
	}
	rep.edits, rep.otherEdits, rep.gaps, rep.conns = r.edits, r.other, r.gaps, len(r.conns)
	for _, c := range d.chats {
		if c.group {
			rep.groupChats++
		} else {
			rep.privChats++
		}
	}
	for _, t := range r.turns {
		rep.turns++
		if !t.resultAt.IsZero() {
			rep.results++
		}
		if !t.complete() {
			rep.lost++
			continue
		}
		lat := t.finalAt.Sub(t.resultAt)
		k := 0
		if t.group {
			k = 1
		}
		rep.final[k] = append(rep.final[k], lat)
		rep.final[2] = append(rep.final[2], lat)
		rep.waited = append(rep.waited, t.finalAt.Sub(t.sent))
		rep.firstPart = append(rep.firstPart, t.firstAt.Sub(t.resultAt))
		rep.byParts[t.parts] = append(rep.byParts[t.parts], lat)
		if !t.askAt.IsZero() && !t.promptAt.IsZero() {
			rep.approval = append(rep.approval, t.promptAt.Sub(t.askAt))
		}
		if !t.pressAt.IsZero() {
			rep.press = append(rep.press, t.finalAt.Sub(t.pressAt))
		}
		if !t.textSeen.IsZero() {
			rep.firstText[k] = append(rep.firstText[k], t.textSeen.Sub(t.textAt))
		}
		size := 1
		if t.followup {
			size = 0
			if !t.claudeFrom.IsZero() {
				claude := t.resultAt.Sub(t.claudeFrom)
				rep.followup = append(rep.followup, t.finalAt.Sub(t.sent)-claude)
			}
		}
		rep.calls[size] = append(rep.calls[size], time.Duration(t.calls))
		rep.actions[size] = append(rep.actions[size], time.Duration(t.actions))
	}
	return rep
}

func (r *report) editsPerSec() float64 {
	s := r.elapsed.Seconds()
	if s <= 0 {
		return 0
	}
	return float64(r.edits[0]+r.edits[1]) / s
}

// mean is the average of counts kept in a dist.
func (d dist) mean() float64 {
	if len(d) == 0 {
		return 0
	}
	var sum time.Duration
	for _, v := range d {
		sum += v
	}
	return float64(sum) / float64(len(d))
}

// line is the one-line summary, in the fixed form scripts parse. first_text
// is for private chats (drafts go there); the table has groups too.
func (r *report) line() string {
	return fmt.Sprintf("load: chats=%d turns=%d 429s=%d finals_lost=%d final_p50_ms=%d final_p99_ms=%d approval_p99_ms=%d edits_per_s=%.1f cpu_s=%.1f rss_mb=%.0f "+
		"first_text_p50_ms=%d first_text_p99_ms=%d followup_p50_ms=%d followup_p99_ms=%d calls_per_turn_short=%.1f calls_per_turn_long=%.1f press_to_final_p50_ms=%d followup_p90_ms=%d",
		r.cfg.chats, r.turns, r.tooMany, r.lost, ms(r.final[2].pct(50)), ms(r.final[2].pct(99)),
		ms(r.approval.pct(99)), r.editsPerSec(), r.use.cpu.Seconds(), mb(r.use.maxRSS),
		ms(r.firstText[0].pct(50)), ms(r.firstText[0].pct(99)), ms(r.followup.pct(50)), ms(r.followup.pct(99)),
		r.calls[0].mean(), r.calls[1].mean(), ms(r.press.pct(50)), ms(r.followup.pct(90)))
}

// table prints the human-readable results.
func (r *report) table(w io.Writer) {
	c := r.cfg
	fmt.Fprintf(w, "untether load: %d chats (%d private, %d groups), %d turns each, %.0f events/s per chat, %s turns, ~%d KB answers, limits enforced: %v\n",
		c.chats, r.privChats, r.groupChats, c.turns, c.eventsPerSec, c.turnTime, c.answerKB, c.limits)
	fmt.Fprintf(w, "run: %.1fs from the first message to the last final, %d Claude sessions started, %d turns completed by Claude\n\n",
		r.elapsed.Seconds(), r.starts, r.results)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "time (ms)\tn\tp50\tp90\tp99\tmax\t")
	row := func(name string, d dist) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t\n", name, len(d), ms(d.pct(50)), ms(d.pct(90)), ms(d.pct(99)), ms(d.pct(100)))
	}
	row("final, private (result → last part)", r.final[0])
	row("final, group (result → last part)", r.final[1])
	row("final, all", r.final[2])
	parts := make([]int, 0, len(r.byParts))
	for n := range r.byParts {
		parts = append(parts, n)
	}
	sort.Ints(parts)
	for _, n := range parts {
		row(fmt.Sprintf("final in %d parts", n), r.byParts[n])
	}
	row("result → first part", r.firstPart)
	row("approval prompt (request → sent)", r.approval)
	row("Approve pressed → final", r.press)
	row("first text, private (delta → seen)", r.firstText[0])
	row("first text, group (delta → seen)", r.firstText[1])
	row("follow-up, bot's overhead", r.followup)
	row("user message → last final part", r.waited)
	row("between progress edits, private", r.gaps[0])
	row("between progress edits, group", r.gaps[1])
	tw.Flush()

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "Bot API method\tok\t429\tother errors\tper s\t")
	names := make([]string, 0, len(r.methods))
	for k := range r.methods {
		names = append(names, k)
	}
	sort.Strings(names)
	counted := 0
	for _, k := range names {
		m := r.methods[k]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f\t\n", k, m.ok, m.tooMany, m.failed, float64(m.ok)/r.elapsed.Seconds())
		if k == "sendMessage" || k == "editMessageText" || k == "editMessageReplyMarkup" || k == "sendMessageDraft" || k == "sendChatAction" {
			counted += m.ok
		}
	}
	tw.Flush()

	secs := r.elapsed.Seconds()
	fmt.Fprintf(w, "\nmessages + edits + drafts + chat actions (what the global limit counts): %.1f/s of the 30/s global limit\n", float64(counted)/secs)
	fmt.Fprintf(w, "progress edits: %.1f/s (private %.2f/s per chat, group %.2f/s per chat); other edits (summaries, prompt outcomes): %d\n",
		r.editsPerSec(), perChat(r.edits[0], r.privChats, secs), perChat(r.edits[1], r.groupChats, secs), r.otherEdits)
	fmt.Fprintf(w, "process: cpu %.1fs (%.0f%% of one core), max RSS %.0f MB, goroutines at the end %d\n",
		r.use.cpu.Seconds(), 100*r.use.cpu.Seconds()/secs, mb(r.use.maxRSS), r.goroutines)
	fmt.Fprintf(w, "per turn (messages + edits + drafts; chat actions): short answers %.1f; %.1f (n=%d), long answers %.1f; %.1f (n=%d)\n",
		r.calls[0].mean(), r.actions[0].mean(), len(r.calls[0]), r.calls[1].mean(), r.actions[1].mean(), len(r.calls[1]))
	fmt.Fprintf(w, "TCP connections the bot opened to the Bot API: %d\n", r.conns)
	fmt.Fprintf(w, "429 responses: %d; finals lost or incomplete: %d of %d turns\n\n", r.tooMany, r.lost, r.turns)
}

func perChat(n, chats int, secs float64) float64 {
	if chats == 0 || secs <= 0 {
		return 0
	}
	return float64(n) / float64(chats) / secs
}
