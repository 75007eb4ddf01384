// Package benchstat holds the statistics soapwire's benchmarks report. On a
// shared, noisy machine a benchmark measures two things side by side,
// round by round, and reports the median of the per-round figures
// (docs/benchmarks.md): one definition of that median for all of them.
package benchstat
