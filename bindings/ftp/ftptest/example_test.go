package ftptest_test

import (
	"fmt"
	"strings"

	"github.com/soapwire/soapwire/bindings/ftp/ftptest"
)

// Config writes the vsftpd configuration StartVsftpd runs with.
func ExampleConfig() {
	conf := ftptest.Config(ftptest.ConfigOptions{
		Port:            2121,
		PAMService:      ftptest.PAMService,
		SecureChrootDir: "/var/run/vsftpd/empty",
	})
	for _, line := range strings.Split(conf, "\n") {
		switch {
		case strings.HasPrefix(line, "listen"), strings.HasPrefix(line, "pasv"),
			strings.HasPrefix(line, "write_enable"), strings.HasPrefix(line, "background"):
			fmt.Println(line)
		}
	}
	// Output:
	// listen=YES
	// listen_ipv6=NO
	// listen_address=127.0.0.1
	// listen_port=2121
	// background=NO
	// write_enable=YES
	// pasv_enable=YES
	// pasv_address=127.0.0.1
}
