// Package logwriter buffers a process's log output so that logging never
// waits on it: a line is copied into memory and the caller goes on, and one
// goroutine writes what gathered, in order, a moment later. Close writes
// everything still held; lines written after Close go straight through, so
// a graceful shutdown loses none.
//
// If the output stalls (a full pipe, a slow disk) the memory held is
// bounded: past MaxBuffered bytes, lines are dropped and counted rather
// than holding up the requests that log them, and OnDrop is told once the
// output moves again.
package logwriter

import (
	"cmp"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Options tune a Writer; zero fields take the defaults.
type Options struct {
	// Delay is how long the first line after a quiet spell waits for
	// others to join it in one write (default 20 ms).
	Delay time.Duration
	// MaxBuffered bounds the bytes held while the output is behind
	// (default 8 MiB).
	MaxBuffered int
	// OnDrop, if set, is called (from the writing goroutine, outside
	// any lock) with the number of lines dropped since its last call.
	OnDrop func(lines int)
}

// Writer is an io.Writer that buffers whole writes (log lines) and writes
// them out from a goroutine of its own.
type Writer struct {
	out  io.Writer
	opts Options

	mu      sync.Mutex
	buf     []byte // lines waiting
	spare   []byte // the other buffer, being written or free
	closed  bool
	dropped int // since the last OnDrop

	// outMu serializes writes to out and hands them over in order: it is
	// taken while mu is held, so whoever took the older lines writes first.
	outMu sync.Mutex

	total     atomic.Uint64 // lines dropped in all
	wake      chan struct{}
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// New returns a Writer to out and starts its goroutine; Close stops it.
func New(out io.Writer, opts Options) *Writer {
	opts.Delay = cmp.Or(opts.Delay, 20*time.Millisecond)
	opts.MaxBuffered = cmp.Or(opts.MaxBuffered, 8<<20)
	w := &Writer{out: out, opts: opts, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

// Write keeps a copy of p (one or more whole lines) for the writing
// goroutine. It never waits on the output; it fails never.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	if w.closed {
		// After Close: straight through, after what Close wrote.
		w.outMu.Lock()
		w.mu.Unlock()
		defer w.outMu.Unlock()
		return w.out.Write(p)
	}
	if len(w.buf)+len(p) > w.opts.MaxBuffered {
		w.dropped++
		w.mu.Unlock()
		w.total.Add(1)
		return len(p), nil
	}
	first := len(w.buf) == 0
	w.buf = append(w.buf, p...)
	w.mu.Unlock()
	if first {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

// Dropped is the number of lines dropped since the Writer was made.
func (w *Writer) Dropped() uint64 { return w.total.Load() }

func (w *Writer) run() {
	defer close(w.done)
	delay := time.NewTimer(0)
	<-delay.C
	for {
		select {
		case <-w.stop:
			return
		case <-w.wake:
		}
		// Let the lines of the next moments join this one.
		delay.Reset(w.opts.Delay)
		select {
		case <-w.stop:
			delay.Stop()
			return
		case <-delay.C:
		}
		w.flush()
	}
}

// flush writes the lines gathered so far.
func (w *Writer) flush() {
	w.mu.Lock()
	chunk := w.buf
	w.buf, w.spare = w.spare[:0], nil
	dropped := w.dropped
	w.dropped = 0
	w.outMu.Lock()
	w.mu.Unlock()
	if len(chunk) > 0 {
		w.out.Write(chunk) // a log has nowhere to report its own failure
	}
	w.outMu.Unlock()
	w.mu.Lock()
	if w.spare == nil && cap(chunk) <= 1<<20 {
		w.spare = chunk[:0] // keep a buffer of ordinary size for the next round
	}
	w.mu.Unlock()
	if dropped > 0 && w.opts.OnDrop != nil {
		w.opts.OnDrop(dropped)
	}
}

// Close writes every line held and stops the goroutine; later writes go
// straight to the output. It is safe to call more than once.
func (w *Writer) Close() error {
	var err error
	w.closeOnce.Do(func() {
		close(w.stop)
		<-w.done
		w.mu.Lock()
		w.closed = true
		chunk := w.buf
		w.buf = nil
		w.outMu.Lock()
		w.mu.Unlock()
		defer w.outMu.Unlock()
		if len(chunk) > 0 {
			_, err = w.out.Write(chunk)
		}
	})
	return err
}
