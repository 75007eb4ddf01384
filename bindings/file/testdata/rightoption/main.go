// Each constructor with options it takes, the shared ones included: this
// must compile (TestWrongOptionDoesNotCompile).
package main

import (
	"log/slog"
	"time"

	soapfile "github.com/soapwire/soapwire/bindings/file"
	"github.com/soapwire/soapwire/core"
)

func main() {
	log := slog.Default()
	_, _ = soapfile.NewSender("/srv/drops", soapfile.WithLogger(log))
	_, _ = soapfile.NewPoller("/srv/drops/orders", soapfile.WithLogger(log), soapfile.WithLayout(soapfile.DefaultLayout()),
		soapfile.WithPollInterval(time.Second), soapfile.WithMaxPollInterval(time.Minute), soapfile.WithSettle(time.Second),
		soapfile.WithLease(time.Minute), soapfile.WithLimits(core.Limits{}), soapfile.WithSpool(1<<20, ""))
}
