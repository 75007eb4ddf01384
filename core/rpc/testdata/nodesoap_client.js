// node-soap client for core/rpc's interop test: loads the example service's
// WSDL, calls every operation and prints one JSON object with the results.
// usage: NODE_PATH=<node_modules with soap 1.13.0> node nodesoap_client.js WSDL_URL [soap11|soap12]
'use strict';
const soap = require('soap');

// node-soap hands values that carry xsi:type (rpc/encoded) back as
// { attributes: { 'xsi:type': … }, $value: … }; v unwraps them.
function v(x) {
  return x !== null && typeof x === 'object' && x.$value !== undefined ? x.$value : x;
}

async function main() {
  const url = process.argv[2];
  const soap12 = process.argv[3] === 'soap12';
  const opts = soap12 ? { forceSoap12Headers: true } : {};
  const client = await soap.createClientAsync(url, opts);
  const out = {};
  const [s] = await client.echoStringAsync({ s: 'héllo <&> wörld' });
  out.echoString = v(s.return);
  const [a] = await client.addAsync({ a: 40, b: 2 });
  out.add = Number(v(a.return));
  const [st] = await client.echoStructAsync({ record: { name: 'n1', count: 7, score: 2.5, tags: ['a', 'b', 'c'] } });
  const r = st.return;
  let tags = r.tags;
  if (tags && tags.item !== undefined) tags = tags.item;
  out.echoStruct = { name: v(r.name), count: Number(v(r.count)), score: Number(v(r.score)), tags: [].concat(tags || []).map(v) };
  const [c] = await client.counterAsync({ value: 4, step: 1 });
  out.counter = { return: Number(v(c.return)), value: Number(v(c.value)), doubled: Number(v(c.doubled)) };
  try {
    await client.failAsync({ reason: 'no such account' });
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
