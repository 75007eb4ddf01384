// node-soap client for soapwire's HTTP interop tests: loads the WSDL of the
// rpc.Service that bindings/http serves ("?wsdl"), calls every operation and
// prints one JSON object with the results.
// usage: node client.js WSDL_URL soap11|soap12
'use strict';
const soap = require('soap');

async function main() {
  const url = process.argv[2];
  const soap12 = process.argv[3] === 'soap12';
  // node-soap sends SOAP 1.2 envelopes, with the action only in the
  // Content-Type, when asked to.
  const client = await soap.createClientAsync(url, soap12 ? { forceSoap12Headers: true } : {});
  const out = {};
  const [s] = await client.echoStringAsync({ message: 'héllo & <world>' });
  out.echoString = s.return;
  const [a] = await client.addAsync({ a: 40, b: 2 });
  out.add = Number(a.return);
  const [st] = await client.echoStructAsync({ value: { name: 'widget', count: 3, score: 2.5, tags: ['a', 'b', 'c'] } });
  const r = st.return;
  out.echoStruct = { name: r.name, count: Number(r.count), score: Number(r.score), tags: [].concat(r.tags || []) };
  try {
    await client.failAsync({ reason: 'boom' });
    out.fail = { raised: false };
  } catch (err) {
    const body = err.root && err.root.Envelope && err.root.Envelope.Body;
    const f = body && body.Fault;
    if (!f) {
      out.fail = { raised: true, message: String(err) };
    } else if (f.faultcode !== undefined) {
      out.fail = { raised: true, code: f.faultcode, message: f.faultstring, detail: JSON.stringify(f.detail) };
    } else {
      const text = f.Reason && f.Reason.Text;
      out.fail = { raised: true, code: f.Code && f.Code.Value, message: text && (text.$value || text), detail: JSON.stringify(f.Detail) };
    }
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((err) => {
  process.stderr.write('node-soap client failed: ' + (err && err.stack || err) + '\n');
  process.exit(1);
});
