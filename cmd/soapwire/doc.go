// Command soapwire sends SOAP documents and makes SOAP calls over HTTP, SMTP,
// FTP and NATS, serves bindings from a configuration file, and inspects
// envelopes.
//
//	soapwire send --to ADDRESS [--action URI] [FILE|-]   send a document (or an envelope as is)
//	soapwire call URL OPERATION [name=value…]            call an operation as its contract (WSDL) says, print the reply or fault
//	soapwire serve --config FILE                          run bindings until SIGINT or SIGTERM
//	soapwire inspect [FILE|-]                             read an envelope and report what it holds
//	soapwire version                                      print the version
//
// Every subcommand takes --help. Exit codes: 0 success, 1 failure (a fault,
// a refused envelope, a transport error), 2 usage (a bad flag or argument,
// an invalid configuration file).
//
// The addresses a document can be sent to pick the binding: mailto: (SMTP,
// with --smtp and --from), ftp://host:port/folder (FTP, with --ftp-user and
// SOAPWIRE_FTP_PASSWORD), nats:subject (NATS, with --nats) and http(s)://
// (HTTP). Passwords come from environment variables only, never from flags.
//
// See docs/cli.md for every flag, the configuration file of serve, and
// examples.
package main
