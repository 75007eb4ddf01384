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

// distance is the edit distance of a and b (insertions, deletions,
// substitutions and transpositions of neighbours, each 1: the optimal
// string alignment distance), or limit+1 when it is over limit.
func distance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	rows := make([][]int, len(ra)+1)
	for i := range rows {
		rows[i] = make([]int, len(rb)+1)
		rows[i][0] = i
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d := min(rows[i-1][j]+1, rows[i][j-1]+1, rows[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d = min(d, rows[i-2][j-2]+1)
			}
			rows[i][j] = d
		}
	}
	return rows[len(ra)][len(rb)]
}
