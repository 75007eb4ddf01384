package suggest_test

import (
	"fmt"

	"github.com/soapwire/soapwire/core/internal/suggest"
)

func ExampleClosest() {
	fmt.Println(suggest.Closest("echoStrng", []string{"add", "echoString", "echoStruct"}))
	// Output: echoString
}
