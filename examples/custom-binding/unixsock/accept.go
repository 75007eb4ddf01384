package unixsock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"
)

// acceptLoop accepts connections on ln until ctx is done and serves each in
// its own goroutine, at most o.maxConns at once. When ctx is done it closes
// ln and every connection, and returns nil once each has been served.
func acceptLoop(ctx context.Context, ln net.Listener, o *listenConfig, serve func(ctx context.Context, conn net.Conn)) error {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(ctx, func() { _ = ln.Close() })
	var wg sync.WaitGroup
	defer func() {
		cancel()
		stop()
		_ = ln.Close()
		wg.Wait()
	}()
	sem := make(chan struct{}, o.maxConns)
	backoff := time.Duration(0)
	for {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		conn, err := ln.Accept()
		if err != nil {
			<-sem
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return fmt.Errorf("unixsock: accept: %w", err)
			}
			// Out of file descriptors and the like: wait, then try again.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			o.log.WarnContext(ctx, "unixsock: accept failed", slog.Any("err", err), slog.Duration("retry_in", backoff))
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			defer conn.Close()
			stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
			defer stop()
			serve(ctx, conn)
		}()
	}
}

// refuse answers a frame the server will not take with a refusal frame
// ('E') carrying reason, and logs why. A peer that sent nothing, went quiet
// or went away gets no answer.
func (o *listenConfig) refuse(ctx context.Context, conn net.Conn, where string, err error, reason string) {
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF):
		return // connected and closed without a frame: nothing to refuse
	case errors.As(err, &ne) && ne.Timeout():
		o.log.InfoContext(ctx, "unixsock: peer too slow, connection dropped", slog.String("at", where), slog.Any("err", err))
		return
	case reason == "" && errors.Is(err, io.ErrUnexpectedEOF):
		// the frame cut short (an envelope cut short inside a whole
		// frame is refused with its reason, below)
		o.log.InfoContext(ctx, "unixsock: frame cut short", slog.String("at", where), slog.Any("err", err))
		return
	}
	if reason == "" {
		reason = err.Error()
	}
	o.log.InfoContext(ctx, "unixsock: refused", slog.String("at", where), slog.String("reason", reason), slog.Any("err", err))
	o.answer(ctx, conn, kindRefused, "", []byte(reason))
}

// answer writes the answer frame, within the I/O timeout.
func (o *listenConfig) answer(ctx context.Context, conn net.Conn, kind byte, action string, payload []byte) {
	_ = conn.SetWriteDeadline(time.Now().Add(o.ioTimeout))
	if err := writeFrame(conn, kind, action, payload); err != nil {
		o.log.InfoContext(ctx, "unixsock: answer not delivered", slog.String("kind", string(kind)), slog.Any("err", err))
	}
}
