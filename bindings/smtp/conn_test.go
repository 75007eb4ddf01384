package smtp

import (
	"bytes"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIdleDeadline: a capConn with idle set (WithIOTimeout) fails a read or
// a write that meets silence longer than idle, and renews the deadline as
// data moves, so a transfer longer than idle whose pieces come in time
// goes through whole (a write of several idleChunks is one call).
func TestIdleDeadline(t *testing.T) {
	const piece = idleChunk
	tests := []struct {
		name   string
		read   bool          // the capConn reads (else it writes)
		idle   time.Duration // the capConn's
		pause  time.Duration // between the peer's pieces; 0: the peer stays silent
		pieces int
	}{
		{name: "ReadPaced", read: true, idle: time.Second, pause: 150 * time.Millisecond, pieces: 10},
		{name: "ReadSilence", read: true, idle: 200 * time.Millisecond},
		{name: "WritePaced", idle: time.Second, pause: 150 * time.Millisecond, pieces: 10},
		{name: "WriteSilence", idle: 200 * time.Millisecond, pieces: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := net.Pipe() // unbuffered: a write waits for the reads
			t.Cleanup(func() { a.Close(); b.Close() })
			c := newCapConn(a)
			c.idle = tt.idle
			data := bytes.Repeat([]byte("x"), piece*tt.pieces)
			peer := make(chan error, 1)
			var err error
			var got []byte
			if tt.read {
				go func() {
					for i := range tt.pieces {
						time.Sleep(tt.pause)
						if _, err := b.Write(data[i*piece : (i+1)*piece]); err != nil {
							peer <- err
							return
						}
					}
					if tt.pause == 0 {
						peer <- nil // silent
						return
					}
					peer <- b.Close()
				}()
				got, err = io.ReadAll(c)
			} else {
				go func() {
					if tt.pause == 0 {
						peer <- nil // never reads
						return
					}
					buf := make([]byte, piece)
					var all []byte
					for len(all) < len(data) {
						time.Sleep(tt.pause)
						n, err := io.ReadFull(b, buf)
						all = append(all, buf[:n]...)
						if err != nil {
							peer <- err
							return
						}
					}
					got = all
					peer <- nil
				}()
				_, err = c.Write(data)
				if err == nil {
					require.NoError(t, <-peer)
				}
			}
			if tt.pause == 0 {
				require.ErrorIs(t, err, os.ErrDeadlineExceeded)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, len(data), len(got))
		})
	}
}
