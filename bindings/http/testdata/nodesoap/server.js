// node-soap server for soapwire's interop tests: serves the interop service
// (document/literal, SOAP 1.1) from interop.wsdl on 127.0.0.1 and prints
// "listening PORT" once ready. usage: node server.js
'use strict';
const http = require('http');
const fs = require('fs');
const path = require('path');
const soap = require('soap');

const wsdl = fs.readFileSync(path.join(__dirname, 'interop.wsdl'), 'utf8');
const service = {
  InteropService: {
    InteropPort: {
      echoString(args) { return { return: args.message }; },
      add(args) { return { return: Number(args.a) + Number(args.b) }; },
      echoStruct(args) { return { return: args.value }; },
      fail(args) {
        throw {
          Fault: {
            faultcode: 'soap:Client',
            faultstring: 'failed: ' + args.reason,
            detail: { info: { attributes: { xmlns: 'urn:soapwire:interop:detail' }, reason: args.reason } },
          },
        };
      },
    },
  },
};

const server = http.createServer((req, res) => { res.statusCode = 404; res.end(); });
server.listen(0, '127.0.0.1', () => {
  soap.listen(server, '/interop', service, wsdl);
  process.stdout.write('listening ' + server.address().port + '\n');
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
