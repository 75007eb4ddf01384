package xsd_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/soapwire/soapwire/core/xsd"
)

// TestBytesEncoderAsEncoder: an Encoder made by NewBytesEncoder writes, in
// memory after what its buffer held, the bytes one made by NewEncoder
// writes to an io.Writer (past the writer's 4 KiB flush too); Bytes is nil
// for the latter.
func TestBytesEncoderAsEncoder(t *testing.T) {
	write := func(e *xsd.Encoder) {
		e.Start("urn:a", "root")
		e.Attr("", "id", `1 & "2"`)
		for i := range 300 {
			e.Start(fmt.Sprintf("urn:ns%d", i%7), "item")
			e.Nil()
			e.End()
			e.Element("", "text", fmt.Sprintf("value <%d> & more", i))
		}
		e.End()
	}
	var buf bytes.Buffer
	plain := xsd.NewEncoder(&buf)
	write(plain)
	if err := plain.Flush(); err != nil {
		t.Fatal(err)
	}
	if plain.Bytes() != nil {
		t.Error("Bytes of an Encoder writing to an io.Writer is not nil")
	}
	if buf.Len() < 8<<10 {
		t.Fatalf("only %d bytes written", buf.Len())
	}
	mem := xsd.NewBytesEncoder([]byte("kept:"))
	write(mem)
	if err := mem.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := string(mem.Bytes()), "kept:"+buf.String(); got != want {
		t.Errorf("NewBytesEncoder wrote\n%.300s\nNewEncoder\n%.300s", got, want)
	}
}
