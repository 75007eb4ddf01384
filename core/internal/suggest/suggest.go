package suggest

import "strings"

// Closest returns the candidate name most likely meant: one equal to name
// but for case, else the nearest within an edit distance of a third of its
// length (at least 1, at most 3, and less than the whole name); "" when
// none is close.
func Closest(name string, candidates []string) string {
	for _, c := range candidates {
		if strings.EqualFold(c, name) && c != name {
			return c
		}
	}
	limit := min(max(len(name)/3, 1), 3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if d := distance(strings.ToLower(name), strings.ToLower(c), limit); d < bestD && d < len([]rune(name)) && c != name {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b, or limit+1 when it is
// over limit.
func distance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
