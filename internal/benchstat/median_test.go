package benchstat_test

import (
	"fmt"
	"testing"

	"github.com/soapwire/soapwire/internal/benchstat"
)

func TestMedian(t *testing.T) {
	for _, tt := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{3, 1}, 2},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{1, 1, 9, 9, 9}, 9},
	} {
		in := append([]float64(nil), tt.xs...)
		if got := benchstat.Median(tt.xs); got != tt.want {
			t.Errorf("Median(%v) = %v, want %v", tt.xs, got, tt.want)
		}
		for i := range in {
			if in[i] != tt.xs[i] {
				t.Fatalf("Median changed its input: %v, was %v", tt.xs, in)
			}
		}
	}
}

func ExampleMedian() {
	ratios := []float64{0.71, 0.44, 0.80, 0.68}
	fmt.Printf("%.3f\n", benchstat.Median(ratios))
	// Output: 0.695
}
