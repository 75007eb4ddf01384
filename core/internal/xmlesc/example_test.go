package xmlesc_test

import (
	"fmt"

	"github.com/soapwire/soapwire/core/internal/xmlesc"
)

func ExampleAppend() {
	s := "Ada's \"turn\" <now>\t&\x01"
	fmt.Printf("%s\n", xmlesc.Append(nil, s, xmlesc.Text))
	fmt.Printf("%s\n", xmlesc.Append(nil, s, xmlesc.Attr))
	fmt.Printf("%s\n", xmlesc.Append(nil, s, xmlesc.Marshal))
	// Output:
	// Ada's "turn" &lt;now&gt;	&amp;�
	// Ada's &quot;turn&quot; &lt;now&gt;&#x9;&amp;�
	// Ada&#39;s &#34;turn&#34; &lt;now&gt;&#x9;&amp;�
}
