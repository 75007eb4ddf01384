package xsd_test

import (
	"testing"

	"github.com/soapwire/soapwire/core/xsd"
)

// TestResetAsNew: a Decoder reset (Reset) and an Encoder reset
// (ResetBytes) after a read or a write that failed halfway read and write
// what new ones (NewDecoder, NewBytesEncoder: the plain reference) do.
func TestResetAsNew(t *testing.T) {
	str := xsd.NewSimples().Builtin(xsd.KindString)
	write := func(e *xsd.Encoder, fail bool) error {
		e.Start("urn:a", "a")
		e.Start("urn:b", "b")
		if err := e.Simple("urn:c", "v", str, map[bool]string{false: "ok", true: "b\x01d"}[fail]); err != nil {
			return err
		}
		e.End()
		e.End()
		return e.Flush()
	}
	fresh := xsd.NewBytesEncoder(nil)
	if err := write(fresh, false); err != nil {
		t.Fatal(err)
	}
	e := xsd.NewBytesEncoder(nil)
	if err := write(e, true); err == nil {
		t.Fatal("an invalid value is written")
	}
	e.ResetBytes(e.Bytes()[:0])
	if err := write(e, false); err != nil {
		t.Fatal(err)
	}
	if string(e.Bytes()) != string(fresh.Bytes()) {
		t.Errorf("after ResetBytes: %s\nnew: %s", e.Bytes(), fresh.Bytes())
	}

	read := func(d *xsd.Decoder) (string, error) {
		if _, err := d.Element("urn:a", "a"); err != nil {
			return "", err
		}
		c, err := d.Child("", "v")
		if err != nil {
			return "", err
		}
		s, err := d.Text(c, str)
		if err != nil {
			return "", err
		}
		return s, d.End("v")
	}
	good := []byte(`<a xmlns="urn:a"><v xmlns="">value</v></a>`)
	want, err := read(xsd.NewDecoder(xsd.BytesReader(good)))
	if err != nil {
		t.Fatal(err)
	}
	d := xsd.NewDecoder(xsd.BytesReader([]byte(`<a xmlns="urn:a"><v xmlns="">half<x/></v></a>`)))
	if _, err := read(d); err == nil {
		t.Fatal("a child inside a value is read")
	}
	d.Reset(xsd.BytesReader(good))
	got, err := read(d)
	if err != nil || got != want {
		t.Errorf("after Reset: %q, %v; new: %q", got, err, want)
	}
	if err := d.Rest(); err != nil {
		t.Errorf("after Reset: %v", err)
	}
}
