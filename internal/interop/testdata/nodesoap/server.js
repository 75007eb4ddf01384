// node-soap server of soapwire's interop harness (internal/interop).
//
// usage: node server.js CONTRACT WSDL_FILE
//
// Serves the harness's contract CONTRACT (calc-qualified, calc-bare,
// calc-encoded or calc-headers) from its WSDL with soap.listen on 127.0.0.1: SOAP 1.1 on
// one port and SOAP 1.2 on another (node-soap picks the envelope version
// per server, not per request; calc-encoded has no SOAP 1.2 port), both at
// /CONTRACT. It prints "listening PORT11 PORT12" once it serves and exits
// when its standard input closes.
//
// The operations answer as the harness's other servers do: echoString,
// add and echoStruct echo (calc-encoded adds sumArray), fail answers a
// Client (SOAP 1.2: Sender) fault "calc refused: CODE" whose detail is
// CalcFault{code, message} in the contract's namespace (calc-encoded: the
// part's accessor "fault" inside it, as gSOAP writes an rpc/encoded fault).
// calc-headers' echoString answers a Trace header block {session: the
// request's Session token, operation: "echoString"} when the request has a
// Session block.
//
// What node-soap hands an operation is cleaned before it is echoed: an
// element with xsi:type comes as {attributes, $value}, which becomes its
// value, and the xsi attributes are dropped, so the reply holds the values
// and the contract's own attributes (Person/@id, Address/@country) only.
'use strict';
const http = require('http');
const fs = require('fs');
const soap = require('soap');

const [contract, wsdlFile] = process.argv.slice(2);
const wsdl = fs.readFileSync(wsdlFile, 'utf8');
const ns = contract === 'calc-qualified' ? 'urn:soapwire:interop:calc' : 'urn:soapwire:interop:' + contract;

// NIL is how an xsi:nil element is written back: node-soap writes null as
// xsi:nil="true" without declaring the xsi prefix (the reply is not
// namespace-well-formed), so the attribute and its declaration are given.
const NIL = { attributes: { 'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance', 'xsi:nil': 'true' } };

// clean turns what node-soap read into plain values: $value for a typed
// element, no xsi or xmlns attributes, NIL for xsi:nil.
function clean(v) {
  if (v === null) return NIL;
  if (Array.isArray(v)) return v.map(clean);
  if (v === null || typeof v !== 'object' || v instanceof Date) return v;
  const attrs = v.attributes || v.$attributes || {};
  if (attrs['xsi:nil'] === 'true' || attrs['xsi:nil'] === true || attrs.nil === 'true') return NIL;
  const own = {};
  for (const [k, x] of Object.entries(attrs)) {
    if (!/^(xsi:|xmlns)/.test(k) && !/^(type|nil)$/.test(k) && !/:encodingStyle$/.test(k)) own[k] = x;
  }
  const keys = Object.keys(v).filter((k) => k !== 'attributes' && k !== '$attributes');
  if ('$value' in v) return v.$value;
  if (!keys.length && !Object.keys(own).length && (attrs['xsi:type'] || attrs.type)) return '';
  const out = {};
  if (Object.keys(own).length) out.attributes = own;
  for (const k of keys) out[k] = clean(v[k]);
  return out;
}

function str(v) {
  v = clean(v);
  return v === undefined || v === NIL ? '' : String(v);
}

function refuse(code, soap12) {
  const message = 'failure ' + code + ' as asked';
  const reason = 'calc refused: ' + code;
  if (soap12) {
    // node-soap writes every element of a SOAP 1.2 fault with the
    // envelope's prefix, a Detail's children too (<soap:CalcFault
    // xmlns="..."> is in the envelope's namespace): the detail goes as raw
    // XML ($xml), as a node-soap user has to write it.
    const e = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    let inner = '<code>' + e(code) + '</code><message>' + e(message) + '</message>';
    if (contract === 'calc-encoded') inner = '<fault xmlns="">' + inner + '</fault>';
    const detail = { $xml: '<CalcFault xmlns="' + ns + '">' + inner + '</CalcFault>' };
    throw { Fault: { Code: { Value: 'soap:Sender' }, Reason: { Text: reason }, Detail: detail, statusCode: 500 } };
  }
  let detail = { CalcFault: { attributes: { xmlns: ns }, code, message } };
  if (contract === 'calc-encoded') {
    detail = { CalcFault: { attributes: { xmlns: ns }, fault: { attributes: { xmlns: '' }, code, message } } };
  }
  throw { Fault: { faultcode: 'soap:Client', faultstring: reason, detail, statusCode: 500 } };
}

function impl(soap12) {
  if (contract === 'calc-bare') {
    return {
      echoString(args) { return str(args); },
      add(args) { args = clean(args); return Number(args.a) + Number(args.b); },
      echoStruct(args) { return clean(args); },
      fail(args) { refuse(str(args), soap12); },
    };
  }
  const ops = {
    echoString(args) { return { return: str(args.s) }; },
    add(args) { return { result: Number(str(args.a)) + Number(str(args.b)) }; },
    echoStruct(args) { return { return: clean(args.person) }; },
    fail(args) { refuse(str(args.code), soap12); },
  };
  if (contract === 'calc-encoded') {
    ops.sumArray = (args) => {
      let values = clean(args.values);
      if (values && !Array.isArray(values)) values = Object.values(values).flat();
      let sum = 0;
      for (const v of values || []) sum += Number(v);
      return { result: sum };
    };
  }
  return ops;
}

// services maps every service and port of the WSDL to the operations.
function services(soap12) {
  const out = {};
  for (const m of wsdl.matchAll(/<(?:[\w.-]+:)?service\s+name="([^"]+)"[^>]*>([\s\S]*?)<\/(?:[\w.-]+:)?service>/g)) {
    out[m[1]] = {};
    for (const p of m[2].matchAll(/<(?:[\w.-]+:)?port\s+name="([^"]+)"/g)) out[m[1]][p[1]] = impl(soap12);
  }
  return out;
}

function start(soap12) {
  return new Promise((resolve) => {
    const server = http.createServer((req, res) => {
      res.statusCode = 404;
      res.end();
    });
    server.listen(0, '127.0.0.1', () => {
      // handleNilAsNull: an xsi:nil element reaches the operation as null
      // (by default node-soap drops it), and null is written back as xsi:nil.
      const srv = soap.listen(server, { path: '/' + contract, services: services(soap12), xml: wsdl, forceSoap12Headers: soap12, handleNilAsNull: true });
      if (contract === 'calc-headers') {
        // echoString answers a Trace header block of the request's Session
        // (none without one): node-soap computes a reply's header blocks
        // with a function given to addSoapHeader.
        srv.addSoapHeader((methodName, args, headers) => {
          const session = headers && clean(headers.Session);
          if (methodName !== 'echoString' || !session || session === NIL) return '';
          return { Trace: { session: str(session.token), operation: 'echoString' } };
        }, '', 'tns', ns);
      }
      resolve(server.address().port);
    });
  });
}

Promise.all([start(false), start(true)]).then(([p11, p12]) => {
  process.stdout.write('listening ' + p11 + ' ' + p12 + '\n');
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
