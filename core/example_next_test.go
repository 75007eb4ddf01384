package core_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// Walk a body token by token without copies: names, values and text are
// slices of the tokenizer's buffer, valid until the next call.
func ExampleBody_Next() {
	const in = `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"
	    xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
	  <soap:Body><m:add xmlns:m="urn:calc"><a xsi:type="xsd:int">2</a><b xsi:type="xsd:int">40</b></m:add></soap:Body>
	</soap:Envelope>`
	m, err := core.ReadMessage(strings.NewReader(in), core.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	body := m.Body()
	for {
		t, err := body.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		switch t.Kind {
		case core.StartElement:
			for _, a := range t.Attr {
				if a.Name.Is("http://www.w3.org/2001/XMLSchema-instance", "type") {
					// resolve the QName value where it stands
					prefix, local, _ := strings.Cut(string(a.Value), ":")
					ns, _ := body.Lookup([]byte(prefix))
					fmt.Printf("%s is {%s}%s: ", t.Name.Local, ns, local)
				}
			}
		case core.CharData:
			fmt.Printf("%s\n", t.Text)
		}
	}
	// Output:
	// a is {http://www.w3.org/2001/XMLSchema}int: 2
	// b is {http://www.w3.org/2001/XMLSchema}int: 40
}
