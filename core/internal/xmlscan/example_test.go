package xmlscan_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/soapwire/soapwire/core/internal/xmlscan"
)

func ExampleScanner() {
	doc := `<m:echo xmlns:m="urn:example" m:id="7"><text>fish &amp; chips</text></m:echo>`
	s := xmlscan.NewScanner(strings.NewReader(doc), xmlscan.Limits{MaxDepth: 16, MaxTokenBytes: 64 << 10})
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
		case xmlscan.StartElement:
			fmt.Printf("start {%s}%s", t.Name.Space, t.Name.Local)
			for _, a := range t.Attr {
				fmt.Printf(" {%s}%s=%s", a.Name.Space, a.Name.Local, a.Value)
			}
			fmt.Println()
		case xmlscan.EndElement:
			fmt.Printf("end {%s}%s\n", t.Name.Space, t.Name.Local)
		case xmlscan.CharData:
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
