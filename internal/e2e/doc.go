// Package e2e holds end-to-end tests that cross the import rules of the
// module's other packages: a binding together with document/ (a Correlator
// over SMTP, FTP or NATS), or one conversation that changes transport. It has
// no API; its tests talk to real servers started in-process or on loopback.
package e2e
