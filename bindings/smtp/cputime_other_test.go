//go:build !unix

package smtp_test

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }

// sysTime is not measured here.
func sysTime() time.Duration { return 0 }
