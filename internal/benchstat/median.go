package benchstat

import "slices"

// Median returns the median of xs: the middle value, or the mean of the
// two middle values of an even count; 0 when xs is empty. xs is not
// changed.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
