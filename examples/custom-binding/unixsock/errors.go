package unixsock

import "errors"

var (
	// ErrRefused is in the chain of the error a Transport returns when the
	// peer answered a frame with a refusal ('E'); the error's text carries
	// the peer's reason.
	ErrRefused = errors.New("unixsock: refused by the peer")

	// ErrProtocol is in the chain of every error about a malformed frame.
	ErrProtocol = errors.New("unixsock: protocol error")

	// ErrAddress is in the chain of the error for an address that is not
	// "unix:" and a usable socket path.
	ErrAddress = errors.New("unixsock: bad address")
)
