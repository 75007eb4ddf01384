package http_test

import (
	"bufio"
	"context"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

// startPeerServer runs a peer server program that prints "listening PORT…"
// once ready, and returns the ports. The program stops when the test ends
// (its stdin closes, then ctx kills it).
func startPeerServer(t *testing.T, dir string, argv ...string) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cancel()
			<-done
		}
		cancel()
	})
	lines := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		if s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	select {
	case line, ok := <-lines:
		require.True(t, ok, "%s exited before it listened", argv[0])
		fields := strings.Fields(line)
		require.Greater(t, len(fields), 1, "%q", line)
		require.Equal(t, "listening", fields[0], "%q", line)
		return fields[1:]
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not start listening within a minute", argv[0])
		return nil
	}
}

// writeInteropWSDL writes the interop service's WSDL into dir.
func writeInteropWSDL(t *testing.T, dir, address string) string {
	t.Helper()
	path := filepath.Join(dir, "interop.wsdl")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, newInteropService().WSDL(f, address))
	require.NoError(t, f.Close())
	return path
}

// callInterop calls every operation of the interop service at url through
// a Transport in version v and checks the answers. fault checks the fault
// fail returns, which differs from peer to peer.
func callInterop(t *testing.T, url string, v core.Version, fault func(t *testing.T, f *core.Fault, status int)) {
	t.Helper()
	tr := soaphttp.NewTransport(url)
	t.Cleanup(tr.CloseIdleConnections)
	c := rpc.NewClient(tr, interopNS, rpc.WithVersion(v))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	es, err := rpc.Call[EchoStringResp](ctx, c, "echoString", EchoStringReq{Message: interopHello})
	require.NoError(t, err, "echoString")
	assert.Equal(t, interopHello, es.Return)

	sum, err := rpc.Call[AddResp](ctx, c, "add", AddReq{A: 40, B: 2})
	require.NoError(t, err, "add")
	assert.Equal(t, int32(42), sum.Return)

	st, err := rpc.Call[EchoStructResp](ctx, c, "echoStruct", EchoStructReq{Value: interopItem})
	require.NoError(t, err, "echoStruct")
	assert.Equal(t, interopItem, st.Return)

	_, err = rpc.Call[FailResp](ctx, c, "fail", FailReq{Reason: "boom"})
	var f *core.Fault
	require.ErrorAs(t, err, &f, "fail")
	assert.True(t, f.Remote)
	assert.Equal(t, v, f.Version)
	assert.Equal(t, core.CodeSender, f.Code)
	var se *soaphttp.StatusError
	require.ErrorAs(t, err, &se, "the HTTP status is in the fault's Cause")
	fault(t, f, se.Code)
}

// faultDetail decodes a detail entry with reason and code children, in
// whatever namespace the peer put them.
func faultDetail(t *testing.T, detail []byte) (reason string, code int) {
	t.Helper()
	var d struct {
		Reason string `xml:"reason"`
		Code   int    `xml:"code"`
	}
	require.NoError(t, xml.Unmarshal(detail, &d), "detail: %s", detail)
	return d.Reason, d.Code
}

// TestInteropNodeSoapServer: node-soap serves the interop service's WSDL
// (written by core/rpc), SOAP 1.1 and 1.2, and our Transport, under an
// rpc.Client, calls every operation.
func TestInteropNodeSoapServer(t *testing.T) {
	t.Parallel() // mostly waiting for peer processes
	if testing.Short() {
		t.Skip("interop peers take seconds to start (-short)")
	}
	node := needNodeSoap(t)
	wsdl := writeInteropWSDL(t, t.TempDir(), "http://127.0.0.1/interop")
	ports := startPeerServer(t, nodeSoapDir, node, "server.js", wsdl, interopService, interopPort11, interopPort12)
	require.Len(t, ports, 2)
	for i, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			callInterop(t, fmt.Sprintf("http://127.0.0.1:%s/interop", ports[i]), v, func(t *testing.T, f *core.Fault, status int) {
				// node-soap answers a 1.1 fault 200 unless told otherwise;
				// the fault is recognised by the envelope, not the status.
				if v == core.V11 {
					assert.Equal(t, 200, status)
				} else {
					assert.Equal(t, 400, status)
				}
				assert.Equal(t, "failed: boom", f.Reason)
				// node-soap puts 1.2 detail entries in the envelope
				// namespace, 1.1 ones in the xmlns given.
				reason, code := faultDetail(t, f.Detail)
				assert.Equal(t, "boom", reason)
				assert.Equal(t, 42, code)
			})
		})
	}
}
