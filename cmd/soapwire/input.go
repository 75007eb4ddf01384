package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// input is what a command reads: a file, or stdin for "-" or no argument.
type input struct {
	io.Reader
	name string // the file's name, "stdin" for stdin
	size int64  // the file's size when it is a regular file, else -1
	file *os.File
}

// errTerminal: no FILE was given and stdin is a terminal, where nobody
// pipes an envelope; "-" reads the terminal anyway.
var errTerminal = errors.New(`no FILE, and stdin is a terminal: give a FILE, pipe one in, or "-" to type it`)

// openInput opens the file named by the positional arguments (at most
// one), or stdin.
func (c *cli) openInput(pos []string) (*input, error) {
	if len(pos) > 1 {
		return nil, fmt.Errorf("more than one file: %q", pos)
	}
	if len(pos) == 0 && isTerminal(c.stdin) {
		return nil, errTerminal
	}
	if len(pos) == 0 || pos[0] == "-" {
		in := &input{Reader: c.stdin, name: "stdin", size: -1}
		if f, ok := c.stdin.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
				in.size = st.Size()
			}
		}
		return in, nil
	}
	f, err := os.Open(pos[0])
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is a directory", pos[0])
	}
	in := &input{Reader: f, name: pos[0], size: -1, file: f}
	if st.Mode().IsRegular() {
		in.size = st.Size()
	}
	return in, nil
}

// Close closes the file (not stdin).
func (in *input) Close() error {
	if in.file == nil {
		return nil
	}
	return in.file.Close()
}
