package wsdl_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

// largestCase returns the corpus contract with the most bytes, its files
// read into memory.
func largestCase(b *testing.B) (corpusCase, xsd.MapLoader) {
	dir := corpusDir(b)
	var best corpusCase
	var bestSize int64
	for _, c := range corpusCases(b, dir) {
		var size int64
		filepath.WalkDir(filepath.Join(dir, "cases", c.ID), func(_ string, d fs.DirEntry, _ error) error {
			if info, err := d.Info(); err == nil && !d.IsDir() {
				size += info.Size()
			}
			return nil
		})
		if size > bestSize {
			best, bestSize = c, size
		}
	}
	files := xsd.MapLoader{}
	root := filepath.Join(dir, "cases", best.ID)
	filepath.WalkDir(root, func(p string, d fs.DirEntry, _ error) error {
		if d != nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			data, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			files[filepath.ToSlash(rel)] = data
		}
		return nil
	})
	return best, files
}

// BenchmarkLoadLargest loads the largest contract of the corpus (the
// VirtualBox web service: one 2.2 MB WSDL, 1158 operations) from memory:
// time and memory per load, and the median ratio of that time to a plain
// encoding/xml token walk over the same bytes, measured in the same run.
func BenchmarkLoadLargest(b *testing.B) {
	c, files := largestCase(b)
	b.Logf("%s: %d bytes", c.ID, len(files[c.Entry]))
	load := func() {
		if _, err := wsdl.Load(b.Context(), files, c.Entry); err != nil {
			b.Fatal(err)
		}
	}
	tokens := func() {
		d := xml.NewDecoder(bytes.NewReader(files[c.Entry]))
		for {
			if _, err := d.Token(); err == io.EOF {
				return
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	var ratios []float64
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		load()
		tl := time.Since(t0)
		b.StopTimer()
		t0 = time.Now()
		tokens()
		tt := time.Since(t0)
		b.StartTimer()
		ratios = append(ratios, float64(tl)/float64(tt))
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "load/xml-tokens")
}
