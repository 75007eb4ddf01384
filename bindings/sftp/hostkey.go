package sftp

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// hostKeyCallback returns the check of the server's host key: the pinned
// keys when there are any, else the known_hosts file (default
// ~/.ssh/known_hosts). Verification is never off: a missing file means
// every host is unknown, and refused.
func (o *clientConfig) hostKeyCallback() (ssh.HostKeyCallback, []string) {
	if len(o.hostKeys) > 0 {
		keys := o.hostKeys
		var algos []string
		for _, k := range keys {
			algos = append(algos, algorithms(k.Type())...)
		}
		return func(host string, _ net.Addr, key ssh.PublicKey) error {
			for _, k := range keys {
				if bytes.Equal(k.Marshal(), key.Marshal()) {
					return nil
				}
			}
			return fmt.Errorf("%w: %s offered %s %s, not the pinned key", ErrHostKey, host, key.Type(), ssh.FingerprintSHA256(key))
		}, algos
	}
	path := o.knownHosts
	if path == "" {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, ".ssh", "known_hosts")
		}
	}
	return func(host string, remote net.Addr, key ssh.PublicKey) error {
		check, err := knownhosts.New(path)
		if err != nil {
			return fmt.Errorf("%w: %s: no known_hosts file to check it against (%v)", ErrUnknownHost, host, err)
		}
		err = check(host, remote, key)
		var ke *knownhosts.KeyError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &ke) && len(ke.Want) == 0:
			return fmt.Errorf("%w: %s (%s %s) is not in %s", ErrUnknownHost, host, key.Type(), ssh.FingerprintSHA256(key), path)
		case errors.As(err, &ke):
			return fmt.Errorf("%w: %s offered %s %s; %s has another key for it (line %d)", ErrHostKey, host, key.Type(), ssh.FingerprintSHA256(key), path, ke.Want[0].Line)
		}
		return fmt.Errorf("%w: %s: %v", ErrHostKey, host, err)
	}, nil
}

// algorithms returns the host key algorithms that verify with a key type.
func algorithms(keyType string) []string {
	if keyType == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{keyType}
}
