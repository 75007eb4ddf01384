package xmltok_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

func ExampleReader() {
	doc := `<m:echo xmlns:m="urn:example" m:id="7"><text>fish &amp; chips</text></m:echo>`
	s := xmltok.NewReader(strings.NewReader(doc), xmltok.Limits{MaxDepth: 16, MaxTokenBytes: 64 << 10})
	for {
		t, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		switch t.Kind {
		case xmltok.StartElement:
			fmt.Printf("start {%s}%s", t.Name.Space, t.Name.Local)
			for _, a := range t.Attr {
				fmt.Printf(" {%s}%s=%s", a.Name.Space, a.Name.Local, a.Value)
			}
			fmt.Println()
		case xmltok.EndElement:
			fmt.Printf("end {%s}%s\n", t.Name.Space, t.Name.Local)
		case xmltok.CharData:
			fmt.Printf("text %q\n", t.Text)
		}
	}
	// Output:
	// start {urn:example}echo {urn:example}id=7
	// start {}text
	// text "fish & chips"
	// end {}text
	// end {urn:example}echo
}
