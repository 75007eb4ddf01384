package sftptest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/soapwire/soapwire/core/coretest"
)

// Defaults, as .ci/setup.d/sftp.sh creates them.
const (
	DefaultUser     = "soapwire-sftp"
	DefaultPassword = "soapwire-sftp-test"
	DefaultHome     = "/var/lib/soapwire-sftp"
	// DefaultKey is the private key whose public half is in the user's
	// authorized_keys (readable by root only).
	DefaultKey = "/var/lib/soapwire-sftp-key/id_ed25519"
	// Binary is where Debian installs sshd.
	Binary = "/usr/sbin/sshd"
)

// SSHD is an OpenSSH server serving one test.
type SSHD struct {
	Addr     string // 127.0.0.1:port
	User     string
	Password string
	Key      ssh.Signer    // logs the user in (public key authentication)
	HostKey  ssh.PublicKey // the server's (for WithHostKey, or a known_hosts line)
	// Dir is the test's own folder as an SFTP path (absolute: OpenSSH's
	// internal-sftp does not chroot here); it exists and is empty. DiskDir
	// is the same on disk.
	Dir, DiskDir string
}

// URL returns the sftp:// address of a folder below Dir.
func (s *SSHD) URL(rel string) string {
	return "sftp://" + s.User + "@" + s.Addr + filepath.ToSlash(filepath.Join(s.Dir, rel))
}

// available says why sshd cannot run here, or nil.
func available(home, key string) error {
	if os.Geteuid() != 0 {
		return errors.New("sshd for tests needs root")
	}
	if _, err := os.Stat(Binary); err != nil {
		return fmt.Errorf("%s is missing (install openssh-server): %v", Binary, err)
	}
	if _, err := user.Lookup(env("SOAPWIRE_SFTP_USER", DefaultUser)); err != nil {
		return fmt.Errorf("no user %s (run .ci/setup.d/sftp.sh): %v", DefaultUser, err)
	}
	if _, err := os.Stat(filepath.Join(home, "drop")); err != nil {
		return fmt.Errorf("no drop folder (run .ci/setup.d/sftp.sh): %v", err)
	}
	if _, err := os.Stat(key); err != nil {
		return fmt.Errorf("no test key (run .ci/setup.d/sftp.sh): %v", err)
	}
	return nil
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// StartSSHD starts sshd on a free loopback port for the test (stopped at
// its end) with a fresh host key, password and public key logins for the
// test user, only SFTP (ForceCommand internal-sftp), and gives the test an
// empty folder of its own. SOAPWIRE_SFTP_USER, SOAPWIRE_SFTP_PASSWORD,
// SOAPWIRE_SFTP_HOME and SOAPWIRE_SFTP_KEY point it elsewhere.
func StartSSHD(t testing.TB) *SSHD {
	t.Helper()
	home, keyFile := env("SOAPWIRE_SFTP_HOME", DefaultHome), env("SOAPWIRE_SFTP_KEY", DefaultKey)
	coretest.RequirePeer(t, "OpenSSH sshd", available(home, keyFile))
	u := env("SOAPWIRE_SFTP_USER", DefaultUser)
	pem, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ssh.ParsePrivateKey(pem)
	if err != nil {
		t.Fatalf("sftptest: %s: %v", keyFile, err)
	}
	work := t.TempDir()
	hostPub, hostFile := hostKey(t, work)
	port := freePort(t)
	cfg := filepath.Join(work, "sshd_config")
	conf := strings.Join([]string{
		"ListenAddress 127.0.0.1:" + strconv.Itoa(port),
		"HostKey " + hostFile,
		"PidFile none",
		"UsePAM no",
		"PasswordAuthentication yes",
		"KbdInteractiveAuthentication no",
		"PubkeyAuthentication yes",
		"AuthorizedKeysFile " + filepath.Join(home, ".ssh", "authorized_keys"),
		"AllowUsers " + u,
		"PermitRootLogin no",
		"Subsystem sftp internal-sftp",
		"ForceCommand internal-sftp",
		"AllowTcpForwarding no",
		"X11Forwarding no",
		"LogLevel VERBOSE",
	}, "\n") + "\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // privilege separation
		t.Fatal(err)
	}
	cmd := exec.Command(Binary, "-D", "-e", "-f", cfg)
	log := &syncWriter{b: &strings.Builder{}}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("sftptest: start sshd: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("sshd log:\n%s", log.String())
		}
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sftptest: sshd did not listen on %s: %v; log:\n%s", addr, err, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	var r [4]byte
	rand.Read(r[:])
	name := strings.NewReplacer("/", "-", " ", "_").Replace(t.Name()) + "-" + hex.EncodeToString(r[:])
	dir := filepath.Join(home, "drop", name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if uu, err := user.Lookup(u); err == nil {
		uid, _ := strconv.Atoi(uu.Uid)
		gid, _ := strconv.Atoi(uu.Gid)
		os.Chown(dir, uid, gid)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return &SSHD{Addr: addr, User: u, Password: env("SOAPWIRE_SFTP_PASSWORD", DefaultPassword), Key: key, HostKey: hostPub, Dir: dir, DiskDir: dir}
}

// hostKey writes a fresh Ed25519 host key for sshd.
func hostKey(t testing.TB, dir string) (ssh.PublicKey, string) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "soapwire test host key")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "ssh_host_ed25519_key")
	if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return sp, file
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
