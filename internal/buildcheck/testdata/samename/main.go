// Two packages named template: the compiler tells their types apart by
// their import paths.
package main

import (
	htmltemplate "html/template"
	"text/template"
)

func main() {
	var b *template.Template
	var a *htmltemplate.Template = b
	_ = a
}
