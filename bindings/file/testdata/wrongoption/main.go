// Options given to constructors that do not take them: each line must be
// refused by the compiler (TestWrongOptionDoesNotCompile).
package main

import (
	"time"

	soapfile "github.com/soapwire/soapwire/bindings/file"
)

func main() {
	_, _ = soapfile.NewSender("/srv/drops", soapfile.WithLease(time.Minute))
}
