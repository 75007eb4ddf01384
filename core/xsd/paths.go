package xsd

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Unflatten turns values given by dotted paths of local names
// ("person.name", "person.tags.0", "person.id" for an attribute) into the
// nested map[string]any the codec encodes (Value.Paths is the other way):
// a numeric segment indexes a repeated element (indexes from 0, without
// gaps), the others are names. A path that is both a value and a parent
// of others ("a" and "a.b") is an error.
func Unflatten(paths map[string]any) (map[string]any, error) {
	keys := make([]string, 0, len(paths))
	for k := range paths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	root := map[string]any{}
	for _, k := range keys {
		segs := strings.Split(k, ".")
		for _, s := range segs {
			if s == "" {
				return nil, fmt.Errorf("the path %q has an empty name", k)
			}
		}
		if err := put(root, segs, paths[k], k); err != nil {
			return nil, err
		}
	}
	return finish(root, "")
}

// node is a map being built: names to values, and indexes to items.
type node = map[string]any

// put stores v at segs below n.
func put(n node, segs []string, v any, path string) error {
	head := segs[0]
	if len(segs) == 1 {
		if _, ok := n[head]; ok {
			return fmt.Errorf("%s is given twice, or is both a value and a structure", path)
		}
		n[head] = v
		return nil
	}
	child, ok := n[head]
	if !ok {
		child = node{}
		n[head] = child
	}
	cn, ok := child.(node)
	if !ok {
		return fmt.Errorf("%s: %s is both a value and a structure", path, head)
	}
	return put(cn, segs[1:], v, path)
}

// finish turns nodes whose names are all indexes into lists.
func finish(n node, at string) (node, error) {
	for k, v := range n {
		cn, ok := v.(node)
		if !ok {
			continue
		}
		here := strings.TrimPrefix(at+"."+k, ".")
		fin, err := finish(cn, here)
		if err != nil {
			return nil, err
		}
		list, isList, err := asList(fin, here)
		if err != nil {
			return nil, err
		}
		if isList {
			n[k] = list
		} else {
			n[k] = fin
		}
	}
	return n, nil
}

// asList returns a node's items when its names are the indexes 0..n-1.
func asList(n node, at string) ([]any, bool, error) {
	idx := make([]int, 0, len(n))
	for k := range n {
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 || strconv.Itoa(i) != k {
			if len(idx) > 0 {
				return nil, false, fmt.Errorf("%s mixes indexes and names", at)
			}
			for k2 := range n {
				if _, err := strconv.Atoi(k2); err == nil {
					return nil, false, fmt.Errorf("%s mixes indexes and names", at)
				}
			}
			return nil, false, nil
		}
		idx = append(idx, i)
	}
	if len(idx) == 0 {
		return nil, false, nil
	}
	sort.Ints(idx)
	out := make([]any, len(idx))
	for j, i := range idx {
		if i != j {
			return nil, false, fmt.Errorf("%s.%d is missing (indexes start at 0, without gaps)", at, j)
		}
		out[j] = n[strconv.Itoa(i)]
	}
	return out, true, nil
}
