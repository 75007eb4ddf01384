// node-soap server for soapwire's HTTP interop tests: serves the WSDL given
// (the rpc.Service's own, written by the Go test) twice on 127.0.0.1, SOAP 1.1
// on one port and SOAP 1.2 on another (node-soap picks the envelope version
// per server, not per request), and prints "listening PORT11 PORT12" once
// ready. It exits when its stdin closes.
// usage: node server.js WSDL_FILE SERVICE PORT11_NAME PORT12_NAME
'use strict';
const http = require('http');
const fs = require('fs');
const soap = require('soap');

const [wsdlFile, serviceName, port11, port12] = process.argv.slice(2);
const wsdl = fs.readFileSync(wsdlFile, 'utf8');

// impl answers every operation; soap12 picks the fault's shape.
function impl(soap12) {
  return {
    echoString(args) { return { return: args.message }; },
    add(args) { return { return: Number(args.a) + Number(args.b) }; },
    echoStruct(args) { return { return: args.value }; },
    fail(args) {
      const detail = { why: { attributes: { xmlns: 'urn:soapwire:interop:detail' }, reason: args.reason, code: 42 } };
      if (soap12) {
        throw { Fault: { Code: { Value: 'soap:Sender' }, Reason: { Text: 'failed: ' + args.reason }, Detail: detail, statusCode: 400 } };
      }
      throw { Fault: { faultcode: 'soap:Client', faultstring: 'failed: ' + args.reason, detail: detail } };
    },
  };
}

function start(soap12) {
  return new Promise((resolve) => {
    const server = http.createServer((req, res) => { res.statusCode = 404; res.end(); });
    server.listen(0, '127.0.0.1', () => {
      const services = { [serviceName]: { [port11]: impl(soap12), [port12]: impl(soap12) } };
      soap.listen(server, { path: '/interop', services, xml: wsdl, forceSoap12Headers: soap12 });
      resolve(server.address().port);
    });
  });
}

Promise.all([start(false), start(true)]).then(([p11, p12]) => {
  process.stdout.write('listening ' + p11 + ' ' + p12 + '\n');
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
