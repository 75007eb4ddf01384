package document_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// A document file usually starts with a byte order mark, an XML declaration
// or a comment. Send drops them (a SOAP Body cannot hold them), reading a
// stream only up to its root element before it sends; a DOCTYPE or a
// processing instruction is refused before anything is sent.
func ExampleSend_prolog() {
	show := core.SendFunc(func(ctx context.Context, m *core.Message) error {
		_, err := m.Body().WriteTo(os.Stdout)
		fmt.Println()
		return err
	})
	file := "\uFEFF<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- exported by the ERP -->\n" +
		`<po:PurchaseOrder xmlns:po="urn:example:po"><Item>nut</Item></po:PurchaseOrder>`
	if _, err := document.Send(context.Background(), show, "mailto:orders@seller.example", strings.NewReader(file)); err != nil {
		fmt.Println(err)
	}

	_, err := document.Send(context.Background(), show, "mailto:orders@seller.example",
		`<?xml-stylesheet href="po.xsl"?><po:PurchaseOrder xmlns:po="urn:example:po"/>`)
	fmt.Println(err)
	fmt.Println(errors.Is(err, document.ErrProlog))
	// Output:
	// <po:PurchaseOrder xmlns:po="urn:example:po"><Item>nut</Item></po:PurchaseOrder>
	// document: prolog refused at byte 0: a processing instruction <?xml-stylesheet …?>: not allowed in SOAP (only the XML declaration, which is dropped)
	// true
}
