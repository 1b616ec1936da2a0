package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// progress draws one status line on a terminal: each running job's stage
// and percentage, and the elapsed time. It is safe for concurrent use by
// parallel builds. On a non-terminal (or with --quiet) it is nil and every
// method is a no-op, so output stays clean in logs and pipes.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	jobs  map[string]string // job name → "stage NN%"
	last  time.Time
	width int
}

// newProgress returns a progress display on stderr if it is a terminal and
// quiet is false, else nil.
func newProgress(stderr io.Writer, quiet bool) *progress {
	if quiet || !isTerminal(stderr) {
		return nil
	}
	return &progress{w: stderr, start: time.Now(), jobs: map[string]string{}}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// callback returns the function a build stage reports to for job name.
func (p *progress) callback(name string) func(stage string, done float64) {
	if p == nil {
		return nil
	}
	return func(stage string, done float64) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.jobs[name] = fmt.Sprintf("%s %3.0f%%", stage, 100*max(0, min(1, done)))
		// Redraw at most ten times a second.
		if now := time.Now(); now.Sub(p.last) >= 100*time.Millisecond || done >= 1 {
			p.last = now
			p.draw()
		}
	}
}

// finish removes job name from the display.
func (p *progress) finish(name string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.jobs, name)
	p.draw()
}

// clear erases the status line so ordinary output can follow.
func (p *progress) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
	p.width = 0
}

func (p *progress) draw() {
	names := make([]string, 0, len(p.jobs))
	for n := range p.jobs {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, n+": "+p.jobs[n])
	}
	line := fmt.Sprintf("%s  %.1fs", strings.Join(parts, " | "), time.Since(p.start).Seconds())
	if len(line) > 120 {
		line = line[:117] + "..."
	}
	pad := max(0, p.width-len(line))
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
	p.width = len(line)
}
