package ratelog_test

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/soapwire/soapwire/bindings/internal/ratelog"
)

func ExampleLimiter() {
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	l := ratelog.New(time.Minute)
	for _, from := range []string{"192.0.2.1", "192.0.2.2", "192.0.2.3"} {
		l.Log(context.Background(), log, slog.LevelInfo, "soap: unsupported media type", slog.String("remote", from))
	}
	l.Flush() // or a minute later
	// Output:
	// level=INFO msg="soap: unsupported media type" remote=192.0.2.1
	// level=INFO msg="soap: unsupported media type" remote=192.0.2.3 count=2
}
