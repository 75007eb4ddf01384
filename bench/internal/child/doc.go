// Package child runs a load program's server in a child process of its own
// (the same executable, told by an environment variable what to serve), so
// that the server's CPU time and memory are measured apart from the
// client's. The parent calls Start and reads the address; the child calls
// Serve, which prints its address and serves until the parent closes its
// stdin (Stop).
package child
