package unixsock

import "bytes"

// ReadFrame and AppendHeader expose the frame codec to the fuzz tests.
func ReadFrame(data []byte, maxBody int64) (kind byte, action string, n int64, err error) {
	f, err := readFrame(bytes.NewReader(data), maxBody)
	return f.kind, f.action, f.n, err
}

// AppendHeader appends a frame header.
func AppendHeader(b []byte, kind byte, action string, n int) ([]byte, error) {
	return appendHeader(b, kind, action, n)
}
