package logwriter

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// Every line written before and after Close reaches the output, whole and
// in each writer's order.
func TestCloseLosesNothing(t *testing.T) {
	var out bytes.Buffer // read once Close has returned
	w := New(&out, Options{Delay: time.Millisecond})
	const writers, lines = 8, 2000
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range lines {
				fmt.Fprintf(w, "writer %d line %d\n", g, i)
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(w, "after close\n")
	w.Close()
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != writers*lines+1 || got[len(got)-1] != "after close" {
		t.Fatalf("%d lines, the last %q; want %d", len(got), got[len(got)-1], writers*lines+1)
	}
	next := make([]int, writers)
	for _, l := range got[:len(got)-1] {
		var g, i int
		if _, err := fmt.Sscanf(l, "writer %d line %d", &g, &i); err != nil || i != next[g] {
			t.Fatalf("line %q out of order or torn (want line %d of writer %d)", l, next[g], g)
		}
		next[g]++
	}
	if w.Dropped() != 0 {
		t.Errorf("%d lines dropped", w.Dropped())
	}
}

// stalled is an output that blocks until released, and says when a
// write has begun.
type stalled struct {
	bytes.Buffer
	writing, release chan struct{}
}

func (s *stalled) Write(p []byte) (int, error) {
	select {
	case s.writing <- struct{}{}:
	default:
	}
	<-s.release
	return s.Buffer.Write(p)
}

// A stalled output holds no writer up: past the bound, lines are dropped
// and counted, and OnDrop hears of them once the output moves again.
func TestStalledOutputDropsInsteadOfBlocking(t *testing.T) {
	out := &stalled{writing: make(chan struct{}, 1), release: make(chan struct{})}
	reported := make(chan int, 10)
	w := New(out, Options{Delay: time.Millisecond, MaxBuffered: 1000, OnDrop: func(n int) { reported <- n }})
	line := strings.Repeat("x", 99) + "\n"
	fmt.Fprint(w, line)
	<-out.writing // the goroutine is now stuck writing it
	done := make(chan struct{})
	go func() {
		for range 50 {
			fmt.Fprint(w, line)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Write waited on a stalled output")
	}
	if w.Dropped() != 40 { // 10 lines of 100 bytes fit in 1000
		t.Errorf("%d lines dropped, want 40", w.Dropped())
	}
	close(out.release)
	select {
	case n := <-reported:
		if n != 40 {
			t.Errorf("OnDrop told of %d lines", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("OnDrop not called")
	}
	w.Close()
	if n := strings.Count(out.String(), "\n"); n != 11 {
		t.Errorf("%d lines written, want 11", n)
	}
}
