package core_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core"
)

// TestReadMessageBytes: ReadMessageBytes reads what ReadMessage reads, with
// the same faults and limits, and leaves its input as it was, though the
// tokenizer decodes attribute values and normalizes line ends in place
// (in its own buffer).
func TestReadMessageBytes(t *testing.T) {
	for _, in := range []string{
		envOf(core.V11, wrap(`<h:T xmlns:h="urn:h" a="x &amp; y&#10;z" s:mustUnderstand="1">a&#13;b&lt;</h:T>`,
			"<m:Op xmlns:m=\"urn:m\" k=\"1\r\n2\">line\r\nnext<![CDATA[<raw>]]>&amp;</m:Op>")),
		envOf(core.V12, wrap("", `<m:Op xmlns:m="urn:m">`+strings.Repeat("long text ", 3000)+`</m:Op>`)),
		envOf(core.V11, wrap("", `<a><b></a></b>`)), // malformed
		`<Envelope/>`, // not an envelope
	} {
		sameFromBytes(t, []byte(in), core.Limits{})
		sameFromBytes(t, []byte(in), core.Limits{MaxBytes: 200})
	}
	_, err := core.ReadMessageBytes([]byte(envOf(core.V11, wrap("", strings.Repeat(" ", 500)+reqBody))), core.Limits{MaxBytes: 100})
	if !errors.Is(err, core.ErrTooLarge) {
		t.Fatalf("over MaxBytes: %v, want ErrTooLarge", err)
	}
}

func ExampleReadMessageBytes() {
	data := []byte(`<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">` +
		`<soap:Body><m:GetPrice xmlns:m="urn:shop"><m:Item>apple</m:Item></m:GetPrice></soap:Body></soap:Envelope>`)
	m, err := core.ReadMessageBytes(data, core.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	var req struct {
		Item string `xml:"urn:shop Item"`
	}
	if err := m.Body().Decode(&req); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Version(), m.Body().Name().Local, req.Item)
	// Output: 1.1 GetPrice apple
}
