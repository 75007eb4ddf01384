package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// lifecycle stops what run started, in the reverse order, and collects
// the errors of the goroutines it ran.
type lifecycle struct {
	mu    sync.Mutex
	stops []func()
	errs  []error
}

// onClose registers f to run at close, before what was registered earlier.
func (l *lifecycle) onClose(f func()) { l.stops = append(l.stops, f) }

// closer registers a Close method whose error is kept.
func (l *lifecycle) closer(name string, c interface{ Close() error }) {
	l.onClose(func() {
		if err := c.Close(); err != nil {
			l.fail(fmt.Errorf("close %s: %w", name, err))
		}
	})
}

// goServe runs serve(ctx) in a goroutine until close, which cancels its
// ctx and waits for it. An error it returns is kept.
func (l *lifecycle) goServe(ctx context.Context, name string, serve func(ctx context.Context) error) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := serve(ctx); err != nil {
			l.fail(fmt.Errorf("%s: %w", name, err))
		}
	}()
	l.onClose(func() { cancel(); <-done })
}

func (l *lifecycle) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, err)
}

// close stops everything, last started first, and returns the errors.
func (l *lifecycle) close() error {
	for i := len(l.stops) - 1; i >= 0; i-- {
		l.stops[i]()
	}
	l.stops = nil
	l.mu.Lock()
	defer l.mu.Unlock()
	return errors.Join(l.errs...)
}
