package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/examples/contract-first/orders"
	"github.com/soapwire/soapwire/gen"
)

// TestMain runs main instead of the tests when TestMainExits asks for it,
// so that the program's flags and exit codes are tested without building
// it.
func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv("CONTRACT_FIRST_MAIN_ARGS"); ok {
		os.Args = append([]string{"contract-first"}, strings.Fields(args)...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runCtx bounds a run well below the test binary's timeout.
func runCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestRun runs the program and checks what it prints, part by part, what
// it leaves in its folder, and that it leaves no goroutine running.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run(runCtx(t, 40*time.Second), &out, dir, slog.New(slog.DiscardHandler)))
	got := out.String()
	t.Log("\n" + got)
	if !assert.Eventually(t, func() bool { return len(leftGoroutines()) == 0 }, 10*time.Second, 10*time.Millisecond) {
		t.Errorf("run left goroutines running:\n%s", strings.Join(leftGoroutines(), "\n\n"))
	}

	inOrder(t, got,
		"run folder: "+dir,
		"== 1. HTTP",
		"customer: GET ?wsdl: 200 OK, the contract with the port's address set to http://127.0.0.1:",
		"  shop: GetQuote by http: POST /orders, SOAPAction urn:example:orders#GetQuote",
		"customer: quote Q-1001: 25.50 EUR",
		"  shop: PlaceOrder by http: POST /orders, SOAPAction urn:example:orders#PlaceOrder",
		"customer: order O-5001 accepted",
		"== 2. NATS",
		"  shop: GetQuote by nats: a request on orders, queue group shop",
		"customer: quote Q-1002: 27.54 USD",
		"  shop: PlaceOrder by nats:",
		"customer: order O-5002 accepted",
		"== 3. Mail",
		"  shop: GetQuote by mail: a mail from buyer@customer.example, Message-ID <",
		"customer: quote Q-1003: 25.50 EUR",
		"  (a mail from orders@shop.example, In-Reply-To <",
		"  shop: PlaceOrder by mail:",
		"customer: order O-5003 accepted",
		"== 4. File drop",
		"  shop: GetQuote by file: the file ",
		"customer: quote Q-1004: 25.50 EUR",
		"  (the file ",
		"  shop: PlaceOrder by file:",
		"customer: order O-5004 accepted",
		"== 5. Faults",
		"  shop: GetQuote by nats",
		`customer: *orders.OrderFaultError, a Sender fault "no price for WIDGET-9": code UnknownSKU, sku WIDGET-9`,
		"  shop: GetQuote by mail",
		`customer: *orders.OrderFaultError, a Sender fault "no Account header": code UnknownAccount`,
		"  shop: PlaceOrder by file",
		`customer: *orders.OrderFaultError, a Sender fault "no quote Q-9999": code UnknownQuote`,
		`customer: refused by the generated client, nothing sent: wsdl: GetQuote: the input does not fit the contract: GetQuote/line/quantity: "0" is not a valid {urn:example:orders}Quantity`,
		"  shop: GetQuote by http",
		`customer: refused by the generated server: a Sender fault: GetQuote/line/quantity: "0" is not a valid {urn:example:orders}Quantity`,
		"left in the run folder:",
	)
	// The client refused the request with quantity 0: the shop saw only
	// the one written by hand.
	assert.Equal(t, 7, strings.Count(got, "shop: GetQuote by "), "GetQuote requests the shop received")

	// Every mail In-Reply-To the request mail before it: the mail's own
	// correlation mirrors the envelope's.
	ids := regexp.MustCompile(`Message-ID (<[^>]+>)\n[^\n]*\n  \(a mail from orders@shop.example, In-Reply-To (<[^>]+>)`).FindAllStringSubmatch(got, -1)
	require.Len(t, ids, 2)
	for _, m := range ids {
		assert.Equal(t, m[1], m[2], "the reply mail answers the request mail")
	}

	for path, n := range map[string]int{
		"mail/shop/done": 3, "mail/customer/done": 3,
		"mail/shop/new": 0, "mail/shop/work": 0, "mail/shop/failed": 0,
		"mail/customer/new": 0, "mail/customer/work": 0, "mail/customer/failed": 0,
		"drop/shop/inbox": 0, "drop/shop/work": 0, "drop/shop/failed": 0,
		"drop/customer/inbox": 0, "drop/customer/work": 0, "drop/customer/failed": 0,
	} {
		entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(path)))
		require.NoError(t, err)
		assert.Len(t, entries, n, path)
	}
}

// TestMainExits runs the program: it exits 0 when every call went as
// shown, 1 with a message saying why otherwise.
func TestMainExits(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	for _, tt := range []struct {
		name, args string
		code       int
		stdout     []string
		stderr     string
	}{
		{"completes", "-dir " + filepath.Join(dir, "run"), 0, []string{"run folder: " + filepath.Join(dir, "run"), "== 5. Faults", "left in the run folder:"}, ""},
		{"temporary folder", "", 0, []string{"run folder: $TMPDIR/soapwire-contract-first-", "left in the run folder:"}, ""},
		{"timeout", "-timeout 1ms -dir " + filepath.Join(dir, "late"), 1, nil, "contract-first: timed out after 1ms: "},
		{"unusable folder", "-dir " + filepath.Join(file, "run"), 1, nil, "contract-first: mkdir " + file + ": not a directory\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.CommandContext(runCtx(t, 40*time.Second), os.Args[0], "-test.run=^$")
			tmp := t.TempDir()
			cmd.Env = append(os.Environ(), "CONTRACT_FIRST_MAIN_ARGS="+tt.args, "TMPDIR="+tmp)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := errors.AsType[*exec.ExitError](err); ok {
				code = ee.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.code, code, "exit code; stderr: %s", stderr.String())
			want := make([]string, len(tt.stdout))
			for i, w := range tt.stdout {
				want[i] = strings.ReplaceAll(w, "$TMPDIR", tmp)
			}
			inOrder(t, stdout.String(), want...)
			if tt.stderr == "" {
				assert.Empty(t, stderr.String())
			} else {
				assert.True(t, strings.HasPrefix(stderr.String(), tt.stderr), "stderr: %q", stderr.String())
			}
		})
	}
}

// TestGeneratedUpToDate: the committed package orders is what soapwire gen
// makes of orders.wsdl today (go generate remakes it).
func TestGeneratedUpToDate(t *testing.T) {
	ct, err := wsdl.Load(t.Context(), xsd.FSLoader(os.DirFS(".")), "orders.wsdl")
	require.NoError(t, err)
	files, err := gen.Generate(ct, gen.WithPackage("orders"), gen.WithSource("orders.wsdl"))
	require.NoError(t, err)
	on, err := filepath.Glob(filepath.Join("orders", "*.go"))
	require.NoError(t, err)
	assert.Len(t, on, len(files), "files in orders/")
	for _, f := range files {
		have, err := os.ReadFile(filepath.Join("orders", f.Name))
		require.NoError(t, err, "go generate makes it")
		assert.Equal(t, string(f.Data), string(have), "orders/%s is not what soapwire gen makes of orders.wsdl: run go generate ./examples/contract-first", f.Name)
	}
}

// TestShopFaults: the implementation answers what it cannot do with the
// declared fault, whose detail says why; the generated server turns it
// into a Sender fault carrying that detail.
func TestShopFaults(t *testing.T) {
	s := newShop()
	lines := []orders.Line{{Sku: "BOLT-M8", Quantity: 1}}
	for _, tt := range []struct {
		name string
		call func() error
		code orders.OrderFaultCode
	}{
		{"no account", func() error {
			_, err := s.GetQuote(t.Context(), &orders.GetQuote{Line: lines, Currency: orders.CurrencyEUR}, nil)
			return err
		}, orders.OrderFaultCodeUnknownAccount},
		{"unknown account", func() error {
			_, err := s.GetQuote(t.Context(), &orders.GetQuote{Line: lines, Currency: orders.CurrencyEUR}, &orders.Account{CustomerId: "X"})
			return err
		}, orders.OrderFaultCodeUnknownAccount},
		{"unknown article", func() error {
			_, err := s.GetQuote(t.Context(), &orders.GetQuote{Line: []orders.Line{{Sku: "NAIL-1", Quantity: 1}}, Currency: orders.CurrencyEUR}, account)
			return err
		}, orders.OrderFaultCodeUnknownSKU},
		{"unknown quote", func() error {
			_, err := s.PlaceOrder(t.Context(), &orders.PlaceOrder{QuoteId: "Q-1"}, account)
			return err
		}, orders.OrderFaultCodeUnknownQuote},
		{"another account's quote", func() error {
			q, err := s.GetQuote(t.Context(), &orders.GetQuote{Line: lines, Currency: orders.CurrencyEUR}, account)
			require.NoError(t, err)
			s.accounts["OTHER-1"] = true
			defer delete(s.accounts, "OTHER-1")
			_, err = s.PlaceOrder(t.Context(), &orders.PlaceOrder{QuoteId: q.QuoteId}, &orders.Account{CustomerId: "OTHER-1"})
			return err
		}, orders.OrderFaultCodeUnknownQuote},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var of *orders.OrderFaultError
			require.ErrorAs(t, err, &of)
			assert.Equal(t, tt.code, of.Detail.Code)
			var f *core.Fault
			require.ErrorAs(t, err, &f, "the fault the server answers")
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Contains(t, string(f.Detail), ":code>"+string(tt.code)+"</", "the detail, written by the generated codec")
		})
	}
}

// TestREADMEShowsTheOutput: README.md shows what the program prints, up to
// what changes from run to run (the folder, ports, ids).
func TestREADMEShowsTheOutput(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(runCtx(t, 40*time.Second), &out, t.TempDir(), slog.New(slog.DiscardHandler)))
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	const first = "```\ncontract-first: "
	i := strings.Index(string(readme), first)
	require.GreaterOrEqual(t, i, 0, "README.md has no sample output")
	rest := string(readme)[i+4:]
	j := strings.Index(rest, "\n```")
	require.GreaterOrEqual(t, j, 0)
	assert.Equal(t, normalize(strings.TrimSpace(out.String())), normalize(rest[:j]), "README.md's sample output is out of date")
}

var (
	runFolder = regexp.MustCompile(`(?m)^run folder: (.+)$`)
	uuid      = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	port      = regexp.MustCompile(`127\.0\.0\.1:\d+`)
)

// normalize replaces what differs between runs: the run folder, loopback
// ports, and UUIDs (numbered in order of appearance, so that which ids
// are equal still shows).
func normalize(s string) string {
	if m := runFolder.FindStringSubmatch(s); m != nil {
		s = strings.ReplaceAll(s, m[1], "$DIR")
	}
	s = port.ReplaceAllString(s, "127.0.0.1:PORT")
	seen := map[string]string{}
	return uuid.ReplaceAllStringFunc(s, func(u string) string {
		if _, ok := seen[u]; !ok {
			seen[u] = "uuid-" + string(rune('A'+len(seen)))
		}
		return seen[u]
	})
}

// leftGoroutines returns the stacks of the goroutines running code of
// the servers and bindings a run starts.
func leftGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var left []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, pkg := range []string{"soapwire/bindings/", "soapwire/core.", "soapwire/document.", "nats-io/", "go-smtp", "net/http."} {
			if strings.Contains(g, pkg) {
				left = append(left, g)
				break
			}
		}
	}
	return left
}

// inOrder checks that the parts appear in s in this order.
func inOrder(t *testing.T, s string, parts ...string) {
	t.Helper()
	rest := s
	for _, p := range parts {
		i := strings.Index(rest, p)
		if !assert.GreaterOrEqual(t, i, 0, "missing, or out of order: %q", p) {
			return
		}
		rest = rest[i+len(p):]
	}
}
