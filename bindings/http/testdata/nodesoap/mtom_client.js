// node-soap MTOM client for soapwire's attachment interop tests: loads the
// WSDL of testdata/mtom, sends a file's bytes to echoData as an MTOM part
// (forceMTOM, an attachment and an xop:Include naming it), reads the
// multipart reply (parseResponseAttachments: MTOM, or SwA when the server
// answers so) and writes the bytes of the part its xop:Include (or swaRef
// text) names to OUT. Prints one JSON line.
// usage: node mtom_client.js WSDL_URL soap11|soap12 IN OUT
'use strict';
const fs = require('fs');
const soap = require('soap');

async function main() {
  const [url, binding, inFile, outFile] = process.argv.slice(2);
  const soap12 = binding === 'soap12';
  const client = await soap.createClientAsync(url, {
    forceSoap12Headers: soap12,
    parseResponseAttachments: true,
  });
  const data = fs.readFileSync(inFile);
  const cid = 'in.' + process.pid + '@node-soap';
  const args = { data: { $xml: '<xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" href="cid:' + cid + '"/>' } };
  const opts = {
    forceMTOM: true,
    attachments: [{ mimetype: 'application/octet-stream', contentId: cid, name: 'in.bin', body: data }],
  };
  const out = {};
  try {
    const [, raw] = await client.echoDataAsync(args, opts);
    // the reply names its part by an xop:Include (MTOM) or by swaRef text
    // "cid:…" (SwA)
    const m = /<(?:[\w-]+:)?Include[^>]*href="cid:([^"]+)"/.exec(raw) || />cid:([^<]+)</.exec(raw);
    const href = m ? decodeURIComponent(m[1]) : '';
    const parts = (client.lastResponseAttachments && client.lastResponseAttachments.parts) || [];
    const part = parts.find((p) => (p.headers['content-id'] || '').replace(/^<|>$/g, '') === href);
    out.href = href;
    out.parts = parts.length;
    if (part) {
      fs.writeFileSync(outFile, part.body);
      out.type = part.headers['content-type'];
      out.size = part.body.length;
    }
  } catch (err) {
    const body = err.root && err.root.Envelope && err.root.Envelope.Body;
    const f = body && body.Fault;
    out.fault = f ? (f.faultcode || (f.Code && f.Code.Value) || JSON.stringify(f)) : String(err);
    out.reason = f ? (f.faultstring || (f.Reason && f.Reason.Text && (f.Reason.Text.$value || f.Reason.Text))) : '';
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((err) => {
  process.stderr.write('node-soap MTOM client failed: ' + (err && err.stack || err) + '\n');
  process.exit(1);
});
