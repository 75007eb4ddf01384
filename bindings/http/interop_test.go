package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
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

const interopNS = "urn:soapwire:interop"

type interopItem struct {
	Name  string   `xml:"name" json:"name"`
	Count int      `xml:"count" json:"count"`
	Score float64  `xml:"score" json:"score"`
	Tags  []string `xml:"tags" json:"tags"`
}

// interopService is the document/literal service of testdata's
// interop.wsdl, written by hand on a core.Mux (no core/rpc), with the WSDL
// served by "?wsdl".
type interopService struct{ core.Mux }

func (*interopService) WSDL(w io.Writer, address string) error {
	raw, err := os.ReadFile(filepath.Join("testdata", "nodesoap", "interop.wsdl"))
	if err != nil {
		return err
	}
	_, err = w.Write(bytes.Replace(raw, []byte("http://127.0.0.1/interop"), []byte(address), 1))
	return err
}

func newInteropService() *interopService {
	s := &interopService{}
	op := func(name string) core.Route { return core.Route{Name: xml.Name{Space: interopNS, Local: name}} }
	reply := func(m *core.Message, name string, v any) (*core.Message, error) {
		var b bytes.Buffer
		b.WriteString(`<tns:` + name + `Response xmlns:tns="` + interopNS + `">`)
		if err := xml.NewEncoder(&b).Encode(v); err != nil {
			return nil, err
		}
		b.WriteString(`</tns:` + name + `Response>`)
		return m.Reply(core.RawBody(b.Bytes())), nil
	}
	s.HandleFunc(op("echoString"), func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var req struct {
			Message string `xml:"message"`
		}
		if err := m.Body().Decode(&req); err != nil {
			return nil, err
		}
		return reply(m, "echoString", struct {
			XMLName xml.Name `xml:"return"`
			V       string   `xml:",chardata"`
		}{V: req.Message})
	})
	s.HandleFunc(op("add"), func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var req struct {
			A int `xml:"a"`
			B int `xml:"b"`
		}
		if err := m.Body().Decode(&req); err != nil {
			return nil, err
		}
		return reply(m, "add", struct {
			XMLName xml.Name `xml:"return"`
			V       int      `xml:",chardata"`
		}{V: req.A + req.B})
	})
	s.HandleFunc(op("echoStruct"), func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var req struct {
			Value interopItem `xml:"value"`
		}
		if err := m.Body().Decode(&req); err != nil {
			return nil, err
		}
		return reply(m, "echoStruct", struct {
			XMLName xml.Name `xml:"return"`
			interopItem
		}{interopItem: req.Value})
	})
	s.HandleFunc(op("fail"), func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var req struct {
			Reason string `xml:"reason"`
		}
		if err := m.Body().Decode(&req); err != nil {
			return nil, err
		}
		return nil, &core.Fault{Code: core.CodeSender, Reason: req.Reason, Detail: []byte(`<tns:why xmlns:tns="` + interopNS + `">asked to</tns:why>`)}
	})
	return s
}

type interopResult struct {
	EchoString string      `json:"echoString"`
	Add        int         `json:"add"`
	EchoStruct interopItem `json:"echoStruct"`
	Fail       struct {
		Code   string `json:"code"`
		String string `json:"string"`
		Detail string `json:"detail"`
		Error  string `json:"error"`
	} `json:"fail"`
}

// TestInteropClients runs real SOAP clients (zeep, suds, node-soap) against
// NewHandler: they fetch "?wsdl" and call every operation, each sending its
// own request shapes (quoted SOAPAction, suds' Soapaction, zeep's
// single-quoted XML declaration, prefixes of their own).
func TestInteropClients(t *testing.T) {
	if testing.Short() {
		t.Skip("interop peers are slow to start (-short)")
	}
	clients := []struct {
		name    string
		cmd     []string
		dir     string
		need    string
		version core.Version
	}{
		{"zeep", []string{"/usr/bin/python3", "zeep_client.py"}, "testdata/python", "zeep", core.V11},
		{"suds", []string{"/usr/bin/python3", "suds_client.py"}, "testdata/python", "suds", core.V11},
		{"node-soap", []string{"node", "client.js"}, "testdata/nodesoap", "", core.V11},
		// SOAP 1.2 envelope, action only in the Content-Type
		{"node-soap 1.2", []string{"node", "client.js", "", "soap12"}, "testdata/nodesoap", "", core.V12},
	}
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			if _, err := exec.LookPath(c.cmd[0]); err != nil {
				t.Skipf("%s is not installed: %v", c.cmd[0], err)
			}
			if c.need != "" {
				if err := exec.Command("/usr/bin/python3", "-c", "import "+c.need).Run(); err != nil {
					t.Skipf("python module %s is not installed (Debian python3-%s)", c.need, c.need)
				}
			}
			if c.cmd[0] == "node" {
				if _, err := os.Stat(filepath.Join(c.dir, "node_modules", "soap")); err != nil {
					t.Skip("node-soap is not installed: run npm ci in testdata/nodesoap")
				}
			}
			var mu sync.Mutex
			var seen []string
			svc := newInteropService()
			srv := serve(t, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				mu.Lock()
				seen = append(seen, m.Version().String()+" "+m.Action)
				mu.Unlock()
				return svc.ServeSOAP(ctx, m)
			}), soaphttp.WithDescriber(svc))
			args := []string{c.cmd[1], srv.URL + "/interop?wsdl"}
			if len(c.cmd) > 3 {
				args = append(args, c.cmd[3:]...)
			}
			ctx, cancel := context.WithCancel(t.Context())
			t.Cleanup(cancel)
			cmd := exec.CommandContext(ctx, c.cmd[0], args...)
			cmd.Dir = c.dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			require.NoError(t, err, "stderr: %s", stderr.String())
			var r interopResult
			require.NoError(t, json.Unmarshal(out, &r), "output: %s", out)
			assert.Equal(t, "héllo & <world>", r.EchoString)
			assert.Equal(t, 42, r.Add)
			assert.Equal(t, interopItem{Name: "widget", Count: 3, Score: 2.5, Tags: []string{"a", "b", "c"}}, r.EchoStruct)
			assert.Empty(t, r.Fail.Error)
			assert.Equal(t, "boom", r.Fail.String, fmt.Sprintf("%+v", r.Fail))
			assert.Regexp(t, "Client|Sender", r.Fail.Code)
			mu.Lock()
			defer mu.Unlock()
			v := c.version.String()
			assert.Equal(t, []string{v + " " + interopNS + "#echoString", v + " " + interopNS + "#add", v + " " + interopNS + "#echoStruct", v + " " + interopNS + "#fail"}, seen)
		})
	}
}

var _ soaphttp.Describer = (*interopService)(nil)
