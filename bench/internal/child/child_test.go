package child_test

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/bench/internal/child"
)

// testEnv, set in a child's environment, is what its server answers.
const testEnv = "CHILD_TEST_SERVE"

func TestMain(m *testing.M) {
	if v := os.Getenv(testEnv); v != "" {
		if v == "exit" {
			os.Exit(3) // a child that fails before serving
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprintf(w, "%s from %d", v, os.Getpid())
		})}
		if err := child.Serve(srv, ln); err != nil {
			log.Fatal(err)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func get(t testing.TB, addr string) string {
	resp, err := http.Get("http://" + addr + "/")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// TestStartStop: the child serves in a process of its own, and Stop ends it.
func TestStartStop(t *testing.T) {
	p, err := child.Start(testEnv, "hello")
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("hello from %d", p.Pid()), get(t, p.Addr))
	assert.NotEqual(t, os.Getpid(), p.Pid())
	p.Stop()
	_, err = net.Dial("tcp", p.Addr)
	assert.Error(t, err, "the child's listener is gone")
}

// TestStartFailure: a child that exits without printing an address is an
// error, not a hang.
func TestStartFailure(t *testing.T) {
	_, err := child.Start(testEnv, "exit")
	require.Error(t, err)
	assert.ErrorContains(t, err, "child "+testEnv+"=exit")
}

func Example() {
	p, err := child.Start(testEnv, "served")
	if err != nil {
		log.Fatal(err)
	}
	defer p.Stop()
	resp, err := http.Get("http://" + p.Addr + "/")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Println(string(b) == fmt.Sprintf("served from %d", p.Pid()))
	// Output: true
}
