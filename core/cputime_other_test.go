//go:build !unix

package core_test

import "time"

const cpuTimeSupported = false

// cpuTime is not measured here: the benchmarks report wall time only.
func cpuTime() time.Duration { return 0 }
