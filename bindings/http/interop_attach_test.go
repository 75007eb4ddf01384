package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// Attachments with real peers: gSOAP (MTOM and SwA, client and server),
// node-soap (an MTOM client), zeep (reading MTOM and SwA replies). The
// contract is testdata/gsoapmtom/mtom.h (gSOAP's) and testdata/mtom's WSDL
// (the same elements, data typed xsd:base64Binary).

const mtomNS = "urn:soapwire:mtom"

type mtomEchoData struct {
	XMLName xml.Name    `xml:"urn:soapwire:mtom echoData"`
	Data    core.Binary `xml:"data"`
}

type mtomEchoDataResponse struct {
	XMLName xml.Name    `xml:"urn:soapwire:mtom echoDataResponse"`
	Data    core.Binary `xml:"data"`
	Size    int64       `xml:"size"`
}

type mtomEchoSwA struct {
	XMLName xml.Name    `xml:"urn:soapwire:mtom echoSwA"`
	Ref     core.Binary `xml:"ref"`
}

type mtomEchoSwAResponse struct {
	XMLName xml.Name    `xml:"urn:soapwire:mtom echoSwAResponse"`
	Ref     core.Binary `xml:"ref"`
	Size    int64       `xml:"size"`
}

// mtomService serves testdata/mtom's contract: echoData answers the bytes
// it got (an xop:Include, swaRef or inline base64) in reply (the request's
// packaging when Inline... see packaging); echoSwA answers the part its ref
// names as an SwA part, or payload when the ref names none (zeep cannot
// send attachments).
type mtomService struct {
	packaging core.Packaging // of the replies; Inline: the request's
	payload   []byte

	mu   sync.Mutex
	got  [][]byte // the bytes of each request
	seen []string // "version packaging action" of each request
}

func (s *mtomService) ServeSOAP(ctx context.Context, m *core.Message) (*core.Message, error) {
	s.mu.Lock()
	s.seen = append(s.seen, m.Version().String()+" "+m.Packaging.String()+" "+m.Action)
	s.mu.Unlock()
	var in core.Binary
	var swa bool
	switch m.Body().Name() {
	case xml.Name{Space: mtomNS, Local: "echoData"}:
		var req mtomEchoData
		if err := m.Body().Decode(&req); err != nil {
			return nil, err
		}
		in = req.Data
	case xml.Name{Space: mtomNS, Local: "echoSwA"}:
		// the ref is a swaRef (cid:…) when the request is a package
		var req struct {
			XMLName xml.Name `xml:"urn:soapwire:mtom echoSwA"`
			Ref     string   `xml:"ref"`
		}
		if err := m.Body().Decode(&req); err != nil {
			return nil, err
		}
		swa = true
		if a := m.Attachment(req.Ref); a != nil {
			in = m.AttachBinary(a)
		}
	default:
		return nil, &core.Fault{Code: core.CodeSender, Reason: "no such operation"}
	}
	var data []byte
	ctype := "application/octet-stream"
	if a := in.Attachment(); a != nil {
		rc, err := in.Open()
		if err != nil {
			return nil, err
		}
		data, err = io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		if a.Type != "" {
			ctype = a.Type
		}
	} else if swa {
		data = s.payload
	}
	s.mu.Lock()
	s.got = append(s.got, data)
	s.mu.Unlock()

	reply := m.Reply(core.Body{})
	reply.Packaging = s.packaging
	if reply.Packaging == core.Inline {
		reply.Packaging = m.Packaging
	}
	out := reply.AttachBinary(core.BytesAttachment(ctype, data))
	if swa {
		if reply.Packaging != core.SwA {
			reply.Packaging = core.SwA
		}
		reply.Envelope.Body = core.ValueBody(mtomEchoSwAResponse{Ref: out, Size: int64(len(data))})
	} else {
		out.ContentType = ctype
		reply.Envelope.Body = core.ValueBody(mtomEchoDataResponse{Data: out, Size: int64(len(data))})
	}
	return reply, nil
}

// WSDL serves testdata/mtom/mtom.wsdl with the address of the request.
func (s *mtomService) WSDL(w io.Writer, address string) error {
	b, err := os.ReadFile("testdata/mtom/mtom.wsdl")
	if err != nil {
		return err
	}
	_, err = w.Write(bytes.ReplaceAll(b, []byte("ADDRESS"), []byte(address)))
	return err
}

// mtomPayload is n bytes that do not start or end with CR or LF (zeep
// strips those from a binary part: see docs/attachments.md) and hold
// every byte value, a CRLF and a would-be boundary inside.
func mtomPayload(n int) []byte {
	b := attData(n)
	copy(b[n/2:], "\r\n--MIMEBoundary_\r\n")
	b[0], b[n-1] = 'A', 'Z'
	return b
}

// buildGSOAPMTOM builds testdata/gsoapmtom (soapcpp2 + g++; a few seconds).
func buildGSOAPMTOM(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"mtom.h", "mtom.cpp"} {
		src, err := os.ReadFile(filepath.Join("testdata/gsoapmtom", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), src, 0o644))
	}
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", name, out)
	}
	run("soapcpp2", "-j", "-x", "-I/usr/share/gsoap/import", "mtom.h")
	run("g++", "-O0", "-pthread", "-DWITH_PURE_VIRTUAL", "-o", "mtom",
		"mtom.cpp", "soapC.cpp", "soapMtomProxy.cpp", "soapMtomService.cpp", "-lgsoap++")
	return filepath.Join(dir, "mtom")
}

// peerResult is the JSON line a peer client prints.
type peerResult struct {
	Size   int64  `json:"size"`
	Type   string `json:"type"`
	Parts  int    `json:"parts"`
	MTOM   bool   `json:"mtom"`
	Href   string `json:"href"`
	Fault  string `json:"fault"`
	Reason string `json:"reason"`
}

// runPeer runs argv in dir and decodes its JSON line.
func runPeer(t *testing.T, dir string, argv ...string) peerResult {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), argv[0], argv[1:]...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s failed: %s", argv[1], stderr.String())
	var r peerResult
	require.NoError(t, json.Unmarshal(out, &r), "output: %s", out)
	return r
}

// TestInteropGSOAPAttachments: a gSOAP program built with its xop/xmime
// support (#import "xop.h", "xmime5.h"; SOAP_ENC_MTOM, soap_set_mime)
// sends 200 KiB as an MTOM part and as an SwA part to NewHandler in both
// versions and gets them back; then it serves the same operations for our
// Transport. The bytes are checked at both ends.
func TestInteropGSOAPAttachments(t *testing.T) {
	t.Parallel() // mostly waiting for peer processes
	if testing.Short() {
		t.Skip("compiles a gSOAP program (-short)")
	}
	needGSOAP(t)
	bin := buildGSOAPMTOM(t)
	payload := mtomPayload(200 << 10)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bin")
	require.NoError(t, os.WriteFile(in, payload, 0o644))

	for _, v := range []core.Version{core.V11, core.V12} {
		for _, p := range []core.Packaging{core.MTOM, core.SwA} {
			t.Run("client/"+v.String()+"/"+p.String(), func(t *testing.T) {
				svc := &mtomService{}
				srv := serve(t, svc)
				out := filepath.Join(t.TempDir(), "out.bin")
				binding := map[core.Version]string{core.V11: "soap11", core.V12: "soap12"}[v]
				kind := map[core.Packaging]string{core.MTOM: "mtom", core.SwA: "swa"}[p]
				r := runPeer(t, ".", bin, "call", srv.URL+"/mtom", binding, kind, in, out)
				require.Len(t, svc.got, 1)
				assert.True(t, bytes.Equal(payload, svc.got[0]), "soapwire got gSOAP's bytes intact")
				op := map[core.Packaging]string{core.MTOM: "echoData", core.SwA: "echoSwA"}[p]
				assert.Equal(t, []string{v.String() + " " + p.String() + " " + mtomNS + "#" + op}, svc.seen)
				back, err := os.ReadFile(out)
				require.NoError(t, err)
				assert.True(t, bytes.Equal(payload, back), "gSOAP got soapwire's reply part intact")
				assert.Equal(t, int64(len(payload)), r.Size)
				assert.Equal(t, "application/octet-stream", r.Type)
				if p == core.MTOM {
					assert.True(t, r.MTOM, "gSOAP read an MTOM reply")
				} else {
					assert.Equal(t, 2, r.Parts, "the root and one attachment (gSOAP lists both)")
				}
			})
		}
	}

	ports := startPeerServer(t, ".", bin, "serve")
	require.Len(t, ports, 1)
	url := "http://127.0.0.1:" + ports[0] + "/mtom"
	tr := soaphttp.NewTransport(url)
	t.Cleanup(tr.CloseIdleConnections)
	for _, v := range []core.Version{core.V11, core.V12} {
		for _, p := range []core.Packaging{core.MTOM, core.SwA} {
			t.Run("server/"+v.String()+"/"+p.String(), func(t *testing.T) {
				reply, err := tr.RoundTrip(t.Context(), mtomRequest(v, p, payload))
				require.NoError(t, err)
				defer reply.Close()
				assert.Equal(t, p, reply.Packaging, "gSOAP answered in the request's packaging")
				assert.Equal(t, v, reply.Version())
				got, size := mtomReplyBytes(t, reply, p)
				assert.True(t, bytes.Equal(payload, got), "the part came back intact (%d bytes)", len(got))
				assert.Equal(t, int64(len(payload)), size, "gSOAP counted the bytes it got")
			})
		}
	}
}

// mtomRequest is a request of testdata/mtom's contract carrying data: to
// echoData (MTOM) or echoSwA (SwA).
func mtomRequest(v core.Version, p core.Packaging, data []byte) *core.Message {
	m := core.NewMessage(v, core.Body{})
	m.Packaging = p
	b := m.AttachBinary(core.BytesAttachment("application/octet-stream", data))
	if p == core.SwA {
		m.Action = mtomNS + "#echoSwA"
		m.Envelope.Body = core.ValueBody(mtomEchoSwA{Ref: b})
	} else {
		m.Action = mtomNS + "#echoData"
		b.ContentType = "application/octet-stream"
		m.Envelope.Body = core.ValueBody(mtomEchoData{Data: b})
	}
	return m
}

// mtomReplyBytes reads the bytes and size of an echoData or echoSwA reply.
func mtomReplyBytes(t *testing.T, reply *core.Message, p core.Packaging) ([]byte, int64) {
	t.Helper()
	var b core.Binary
	var size int64
	if p == core.SwA {
		var r mtomEchoSwAResponse
		require.NoError(t, reply.Body().Decode(&r))
		b, size = r.Ref, r.Size
	} else {
		var r mtomEchoDataResponse
		require.NoError(t, reply.Body().Decode(&r))
		b, size = r.Data, r.Size
	}
	require.NotNil(t, b.Attachment(), "the reply names a part")
	rc, err := b.Open()
	require.NoError(t, err)
	defer rc.Close()
	got, err := io.ReadAll(rc)
	require.NoError(t, err)
	return got, size
}

// TestInteropNodeSoapMTOM: node-soap's client sends MTOM (forceMTOM, an
// attachment, an xop:Include naming it) to NewHandler and reads the MTOM
// reply (parseResponseAttachments), or an SwA one. In SOAP 1.2 node-soap labels the root
// part text/xml (start-info and type), so its 1.2 envelope is answered as
// a 1.2 envelope sent as text/xml is: a SOAP 1.1 VersionMismatch fault.
func TestInteropNodeSoapMTOM(t *testing.T) {
	t.Parallel() // mostly waiting for peer processes
	if testing.Short() {
		t.Skip("interop peers take seconds to start (-short)")
	}
	node := needNodeSoap(t)
	payload := mtomPayload(100 << 10)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bin")
	require.NoError(t, os.WriteFile(in, payload, 0o644))
	for _, c := range []struct {
		binding string
		reply   core.Packaging // Inline: the request's (MTOM)
	}{{"soap11", core.Inline}, {"soap11", core.SwA}, {"soap12", core.Inline}} {
		t.Run(c.binding+"/reply "+map[core.Packaging]string{core.Inline: "MTOM", core.SwA: "SwA"}[c.reply], func(t *testing.T) {
			svc := &mtomService{packaging: c.reply}
			srv := serve(t, svc)
			out := filepath.Join(t.TempDir(), "out.bin")
			r := runPeer(t, nodeSoapDir, node, "mtom_client.js", srv.URL+"/mtom?wsdl", c.binding, in, out)
			if c.binding == "soap12" {
				assert.Equal(t, "soap:VersionMismatch", r.Fault, "node-soap's 1.2 MTOM is labelled 1.1")
				assert.Contains(t, r.Reason, "text/xml")
				assert.Empty(t, svc.got, "the handler was not called")
				return
			}
			require.Empty(t, r.Fault, r.Reason)
			require.Len(t, svc.got, 1)
			assert.True(t, bytes.Equal(payload, svc.got[0]), "soapwire got node-soap's part intact")
			assert.Equal(t, []string{"1.1 MTOM " + mtomNS + "#echoData"}, svc.seen)
			back, err := os.ReadFile(out)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(payload, back), "node-soap got the reply's part intact")
			assert.Equal(t, 1, r.Parts, "one part besides the root")
			assert.Equal(t, "application/octet-stream", r.Type)
		})
	}
}

// TestInteropZeepAttachments: zeep reads soapwire's MTOM replies (it
// resolves the xop:Include into the base64Binary value) and SwA replies
// (a MessagePack: the body and the parts), in both versions. zeep sends
// its request inline: it does not send attachments.
func TestInteropZeepAttachments(t *testing.T) {
	t.Parallel() // mostly waiting for peer processes
	if testing.Short() {
		t.Skip("interop peers take seconds to start (-short)")
	}
	needPython(t, "zeep")
	payload := mtomPayload(100 << 10)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bin")
	require.NoError(t, os.WriteFile(in, payload, 0o644))
	for _, binding := range []string{"soap11", "soap12"} {
		for _, p := range []core.Packaging{core.MTOM, core.SwA} {
			t.Run(binding+"/"+p.String(), func(t *testing.T) {
				svc := &mtomService{packaging: p, payload: payload}
				srv := serve(t, svc)
				out := filepath.Join(t.TempDir(), "out.bin")
				kind := map[core.Packaging]string{core.MTOM: "mtom", core.SwA: "swa"}[p]
				r := runPeer(t, "testdata/python", python, "zeep_mtom.py", srv.URL+"/mtom?wsdl", binding, kind, in, out)
				require.Len(t, svc.got, 1)
				assert.True(t, bytes.Equal(payload, svc.got[0]), "soapwire got zeep's bytes")
				back, err := os.ReadFile(out)
				require.NoError(t, err)
				assert.True(t, bytes.Equal(payload, back), "zeep got the reply's part intact")
				assert.Equal(t, int64(len(payload)), r.Size)
				if p == core.SwA {
					assert.Equal(t, 1, r.Parts)
					assert.Equal(t, "application/octet-stream", r.Type)
				}
			})
		}
	}
}

// TestInteropZeepStripsLineEnds documents the zeep behaviour the peer table
// names: zeep 4.2 strips CR and LF from both ends of a part sent with
// Content-Transfer-Encoding binary (zeep.wsdl.attachments), so a value
// that ends in a line break loses it. soapwire writes parts as binary.
func TestInteropZeepStripsLineEnds(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("interop peers take seconds to start (-short)")
	}
	needPython(t, "zeep")
	payload := []byte("line one\r\nline two\r\n")
	in := filepath.Join(t.TempDir(), "in.bin")
	require.NoError(t, os.WriteFile(in, payload, 0o644))
	svc := &mtomService{packaging: core.MTOM}
	srv := serve(t, svc)
	out := filepath.Join(t.TempDir(), "out.bin")
	runPeer(t, "testdata/python", python, "zeep_mtom.py", srv.URL+"/mtom?wsdl", "soap11", "mtom", in, out)
	back, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "line one\r\nline two", string(back), "zeep still strips a part's trailing line break: update docs/attachments.md if this fails")
}
