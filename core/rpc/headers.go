package rpc

import (
	"bytes"
	"encoding/xml"
	"reflect"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/soapenc"
)

// This file carries the header parts of an operation (soap:header): fields
// tagged header are header blocks, each a global element in the service
// namespace (or its xml tag's), not body accessors.

// encodeHeaders returns the header blocks of the header parts of mp, taken
// from the struct sv. A nil optional pointer sends no block, a nil nillable
// one a block with xsi:nil.
func encodeHeaders(w *wire, v core.Version, ns string, mp *msgPlan, sv reflect.Value) ([]core.HeaderBlock, error) {
	if len(mp.headers) == 0 {
		return nil, nil
	}
	enc := w.encoder(v, ns)
	var out []core.HeaderBlock
	for i := range mp.headers {
		p := &mp.headers[i]
		val, skip := paramValue(p, sv)
		if skip {
			continue
		}
		var b bytes.Buffer
		if err := enc.Encode(&b, xml.Name{Space: p.Space, Local: p.Name}, val); err != nil {
			return nil, err
		}
		hb, err := core.ParseHeaderBlock(b.Bytes())
		if err != nil {
			return nil, err
		}
		out = append(out, hb)
	}
	return out, nil
}

// decodeHeaders reads the header parts of mp from blocks into the struct
// sv: a required part without its block is an error naming it, as is a
// block given twice (a list is one block of items).
func decodeHeaders(v core.Version, blocks []core.HeaderBlock, w *wire, ns string, mp *msgPlan, sv reflect.Value) error {
	for _, p := range mp.headers {
		var found [][]byte
		for i := range blocks {
			if blocks[i].Name.Local == p.Name && blocks[i].Name.Space == p.Space {
				found = append(found, blocks[i].XML)
			}
		}
		if len(found) == 0 {
			if !p.Optional {
				return badArgs(v, "missing header %s", nameOf(xml.Name{Space: p.Space, Local: p.Name}))
			}
			continue
		}
		if len(found) > 1 {
			return badArgs(v, "header %s given %d times", nameOf(xml.Name{Space: p.Space, Local: p.Name}), len(found))
		}
		el, err := w.decoder(xml.NewDecoder(bytes.NewReader(found[0])), ns).ReadBody()
		if err != nil {
			return argsFault(v, err)
		}
		if err := decodeOne(v, p, []*soapenc.Element{el}, sv); err != nil {
			return err
		}
	}
	return nil
}
