//go:build unix

package soapenc_test

import "syscall"

// cpuNanos is the CPU time (user + system) this process has used. With
// -cpu 1 it is, within a benchmark, the benchmark's own work and its garbage
// collection, and it barely moves when other processes load the machine.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
