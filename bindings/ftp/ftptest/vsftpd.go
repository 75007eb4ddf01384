package ftptest

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/soapwire/soapwire/core/coretest"
)

// Defaults, as .ci/setup.d/ftp.sh creates them.
const (
	DefaultUser     = "soapwire-ftp"
	DefaultPassword = "soapwire-ftp-test"
	DefaultHome     = "/var/lib/soapwire-ftp"
	// PAMService is the PAM service the setup script installs (password
	// check only).
	PAMService = "soapwire-ftp"
	// Binary is where Debian installs vsftpd.
	Binary = "/usr/sbin/vsftpd"
)

// Vsftpd is a vsftpd serving one test.
type Vsftpd struct {
	Addr     string // 127.0.0.1:port
	User     string
	Password string
	// Dir is the test's own folder as an FTP path (the user is chrooted to
	// its home: /drop/<test>-<random>); it exists and is empty.
	Dir string
	// DiskDir is the same folder on disk.
	DiskDir string
	// RootCAs trusts the server's certificate (with Options.TLS).
	RootCAs *x509.CertPool
}

// URL returns the ftp:// address of a folder below Dir.
func (v *Vsftpd) URL(rel string) string {
	return "ftp://" + v.Addr + filepath.ToSlash(filepath.Join(v.Dir, rel))
}

// Options configure StartVsftpd.
type Options struct {
	// TLS makes the server require explicit FTPS (AUTH TLS, PROT P) with a
	// fresh self-signed certificate for 127.0.0.1 (trusted by RootCAs).
	TLS bool
}

// ConfigOptions are the values Config writes.
type ConfigOptions struct {
	Port            int
	PAMService      string
	SecureChrootDir string
	// CertFile and KeyFile, when set, turn on ssl_enable and require TLS
	// for logins and data.
	CertFile, KeyFile string
	LogFile           string
}

// Config returns a vsftpd configuration for a test: standalone
// (listen=YES, background=NO) on 127.0.0.1:Port, local users chrooted to
// their home with writes allowed, passive mode on loopback, no anonymous
// access, no seccomp sandbox or namespaces (which containers refuse).
func Config(o ConfigOptions) string {
	var b strings.Builder
	kv := func(k, v string) { fmt.Fprintf(&b, "%s=%s\n", k, v) }
	kv("listen", "YES")
	kv("listen_ipv6", "NO")
	kv("listen_address", "127.0.0.1")
	kv("listen_port", strconv.Itoa(o.Port))
	kv("background", "NO")
	kv("anonymous_enable", "NO")
	kv("local_enable", "YES")
	kv("write_enable", "YES")
	kv("local_umask", "022")
	kv("chroot_local_user", "YES")
	kv("secure_chroot_dir", o.SecureChrootDir)
	kv("pam_service_name", o.PAMService)
	kv("userlist_enable", "NO")
	kv("pasv_enable", "YES")
	kv("pasv_address", "127.0.0.1")
	kv("connect_from_port_20", "NO")
	kv("port_enable", "NO")
	kv("max_per_ip", "0")
	kv("max_clients", "0")
	kv("seccomp_sandbox", "NO")
	kv("isolate", "NO")
	kv("isolate_network", "NO")
	kv("dirmessage_enable", "NO")
	kv("use_localtime", "NO")
	kv("delete_failed_uploads", "YES")
	kv("xferlog_enable", "NO")
	if o.LogFile != "" {
		kv("vsftpd_log_file", o.LogFile)
		kv("dual_log_enable", "NO")
		kv("log_ftp_protocol", "YES")
	}
	if o.CertFile != "" {
		kv("ssl_enable", "YES")
		kv("rsa_cert_file", o.CertFile)
		kv("rsa_private_key_file", o.KeyFile)
		kv("allow_anon_ssl", "NO")
		kv("force_local_logins_ssl", "YES")
		kv("force_local_data_ssl", "YES")
		kv("ssl_tlsv1", "NO")
		kv("ssl_sslv2", "NO")
		kv("ssl_sslv3", "NO")
		kv("require_ssl_reuse", "YES")
		kv("ssl_ciphers", "HIGH")
	}
	return b.String()
}

// StartVsftpd starts vsftpd for t and stops it when t ends. It skips t
// (fails it with SOAPWIRE_REQUIRE_PEERS=1) when vsftpd or the test user is
// missing.
func StartVsftpd(t testing.TB, o Options) *Vsftpd {
	t.Helper()
	usr, pass, home := env("SOAPWIRE_FTP_USER", DefaultUser), env("SOAPWIRE_FTP_PASSWORD", DefaultPassword), env("SOAPWIRE_FTP_HOME", DefaultHome)
	u, err := check(usr, home)
	if err != nil {
		coretest.RequirePeer(t, "vsftpd", fmt.Errorf("%w (run .ci/setup.d/ftp.sh as root)", err))
	}
	tmp := t.TempDir()
	empty := filepath.Join(tmp, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	co := ConfigOptions{PAMService: PAMService, SecureChrootDir: empty, LogFile: filepath.Join(tmp, "vsftpd.log")}
	v := &Vsftpd{User: usr, Password: pass}
	if o.TLS {
		co.CertFile, co.KeyFile, v.RootCAs = certificate(t, tmp)
	}

	// The test's folder, owned by the FTP user.
	var rnd [4]byte
	rand.Read(rnd[:])
	name := regexp.MustCompile(`[^A-Za-z0-9_-]+`).ReplaceAllString(t.Name(), "_")
	if len(name) > 60 {
		name = name[:60]
	}
	name += "-" + hex.EncodeToString(rnd[:])
	v.Dir = "/drop/" + name
	v.DiskDir = filepath.Join(home, "drop", name)
	if err := os.Mkdir(v.DiskDir, 0o755); err != nil {
		t.Fatalf("vsftpd: test folder: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(v.DiskDir, uid, gid); err != nil {
		t.Fatalf("vsftpd: test folder: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(v.DiskDir) })

	var last error
	for range 5 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		co.Port = port
		conf := filepath.Join(tmp, "vsftpd.conf")
		if err := os.WriteFile(conf, []byte(Config(co)), 0o600); err != nil {
			t.Fatal(err)
		}
		if last = start(t, conf, port); last == nil {
			v.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
			return v
		}
	}
	t.Fatalf("vsftpd did not start: %v", last)
	return nil
}

// start runs vsftpd and waits for its greeting.
func start(t testing.TB, conf string, port int) error {
	var out syncBuffer
	cmd := exec.Command(Binary, conf)
	cmd.Stdout, cmd.Stderr = &out, &out
	// Its own process group, so stopping it also stops its session
	// processes.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			exited <- err
			stop()
			return fmt.Errorf("vsftpd exited: %v: %s", err, strings.TrimSpace(out.String()))
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		c.Write([]byte("QUIT\r\n"))
		c.Close()
		if err == nil && strings.HasPrefix(line, "220") {
			t.Cleanup(stop)
			return nil
		}
		stop()
		return fmt.Errorf("vsftpd greeting %q: %v: %s", line, err, out.String())
	}
	stop()
	return fmt.Errorf("vsftpd did not listen on %s: %s", addr, out.String())
}

// check says why vsftpd cannot run here, or returns the test user.
func check(usr, home string) (*user.User, error) {
	if _, err := os.Stat(Binary); err != nil {
		return nil, fmt.Errorf("%s missing (apt-get install vsftpd)", Binary)
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("vsftpd needs root to log in local users")
	}
	u, err := user.Lookup(usr)
	if err != nil {
		return nil, fmt.Errorf("user %s: %v", usr, err)
	}
	if _, err := os.Stat(filepath.Join(home, "drop")); err != nil {
		return nil, fmt.Errorf("drop folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join("/etc/pam.d", PAMService)); err != nil {
		return nil, fmt.Errorf("PAM service: %v", err)
	}
	return u, nil
}

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// certificate writes a self-signed certificate for 127.0.0.1 and its key.
func certificate(t testing.TB, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	_, der, key := SelfSigned(t)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool.AddCert(c)
	return certFile, keyFile, pool
}

// SelfSigned returns a fresh self-signed certificate for 127.0.0.1 and
// localhost (for a tls.Config's Certificates), its DER bytes and its key.
func SelfSigned(t testing.TB) (tls.Certificate, []byte, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "soapwire ftp test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, der, key
}

// syncBuffer is a bytes.Buffer safe for the process's output goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
