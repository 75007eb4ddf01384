//go:build unix

package document_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system, all threads) the process used
// so far: a cost measure that other processes on a busy machine disturb
// less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
