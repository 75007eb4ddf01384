// node-soap client of soapwire's interop harness (internal/interop).
//
// usage: node client.js CATALOG_DIR WSDL [ENDPOINT] < calls.json
//
// Loads WSDL (a file or a URL; CATALOG_DIR is not used: node-soap fetches
// what the WSDL imports itself) and makes each call through the WSDL's
// first port of the call's SOAP version (to ENDPOINT when given), created
// with forceSoap12Headers for SOAP 1.2. A call's header blocks ("headers",
// by element name) go through addSoapHeader in the namespace of the schema
// declaring the element; the reply's header blocks, as node-soap hands
// them to the callback, print at header.ELEMENT. It prints what came back in the
// harness's text form (see ../python/peer.py): PATH=JSON-STRING, PATH=nil,
// calls separated by "--". node-soap keeps attributes under "attributes"
// and an element with attributes' text under "$value"; both are printed by
// the element's path (an empty simple-typed element with attributes, such
// as xsi:type, has no "$value" and prints as the empty string).
'use strict';
const fs = require('fs');
const soap = require('soap');

const SOAP12 = 'http://schemas.xmlsoap.org/wsdl/soap12/';
const XSI = ['xsi:nil', 'xsi:type', 'nil', 'type'];

function out(path, v) {
  process.stdout.write(path + '=' + JSON.stringify(text(v)) + '\n');
}
function outNil(path) {
  process.stdout.write(path + '=nil\n');
}
function text(v) {
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof Date) return v.toISOString();
  return String(v);
}

// nest turns {"person.name": "Ada", "person.tags.0": "a"} into
// {person: {name: "Ada", tags: ["a"]}}.
function nest(args) {
  const root = {};
  for (const [path, value] of Object.entries(args || {})) {
    const keys = path.split('.');
    let node = root;
    keys.forEach((k, i) => {
      if (i === keys.length - 1) node[k] = value;
      else node = node[k] = node[k] || {};
    });
  }
  return lists(root);
}
function lists(node) {
  if (node === null || typeof node !== 'object') return node;
  const keys = Object.keys(node);
  if (keys.length && keys.every((k) => /^\d+$/.test(k))) {
    return keys.sort((a, b) => a - b).map((k) => lists(node[k]));
  }
  const o = {};
  for (const k of keys) o[k] = lists(node[k]);
  return o;
}

// toNode moves attributes under node-soap's "attributes" key; attrs are the
// attribute names the WSDL's schema declares (describe() does not show
// attributes).
function toNode(value, attrs) {
  if (Array.isArray(value)) return value.map((v) => toNode(v, attrs));
  if (value === null || typeof value !== 'object') return value;
  const o = {};
  for (const [k, v] of Object.entries(value)) {
    if (attrs.has(k)) {
      o.attributes = o.attributes || {};
      o.attributes[k] = v;
    } else {
      o[k] = toNode(v, attrs);
    }
  }
  return o;
}

// order puts the keys of an argument in the schema's order: node-soap
// writes a document/literal message in the schema's order but an rpc one in
// the object's. desc is node-soap's describe() of the argument: an object
// whose keys are in the schema's order ("tags[]" for a list), or for rpc
// parts the raw schema node, whose element children are followed here.
function order(client, value, desc) {
  if (Array.isArray(value)) return value.map((v) => order(client, v, desc));
  if (value === null || typeof value !== 'object' || !desc || typeof desc !== 'object') return value;
  const fields = Array.isArray(desc.children)
    ? schemaFields(client, desc)
    : Object.keys(desc).map((d) => [d.replace(/\[\]$/, ''), desc[d]]);
  const o = {};
  for (const [k, sub] of fields) if (k in value) o[k] = order(client, value[k], sub);
  for (const k of Object.keys(value)) if (!(k in o)) o[k] = value[k];
  return o;
}

// schemaFields lists a raw schema node's elements in order, each with the
// node of its type (or of itself, for an anonymous type).
function schemaFields(client, node) {
  const out = [];
  const visit = (n) => {
    for (const ch of n.children || []) {
      if (ch.name === 'element') out.push([ch.$name, typeNode(client, ch)]);
      else if (ch.name !== 'attribute') visit(ch);
    }
  };
  visit(node);
  return out;
}
function typeNode(client, el) {
  if (!el.$type) return el;
  const [prefix, local] = el.$type.includes(':') ? el.$type.split(':') : ['', el.$type];
  const ns = (el.definitionsXmlns || {})[prefix];
  const schema = ns && client.wsdl.definitions.schemas[ns];
  return (schema && schema.complexTypes[local]) || null;
}

// walk prints value at path; desc, node-soap's describe() of the element,
// marks list children ("tags[]") so a list of one prints as a list.
function walk(path, value, desc) {
  if (value === undefined) return;
  if (value === null) {
    outNil(path);
    return;
  }
  if (typeof value !== 'object' || value instanceof Date) {
    out(path, value);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => walk(path + '.' + i, v, desc));
    return;
  }
  const attrs = value.attributes || value.$attributes || {};
  if (attrs['xsi:nil'] === 'true' || attrs.nil === 'true') {
    outNil(path);
    return;
  }
  for (const [k, v] of Object.entries(attrs)) {
    if (!XSI.includes(k) && !k.startsWith('xmlns')) out(path + '.' + k, v);
  }
  if ('$value' in value) out(path, value.$value);
  else if (typeof desc === 'string' && Object.keys(value).every((k) => k === 'attributes' || k === '$attributes')) {
    // A simple-typed element with attributes (xsi:type) and no text:
    // node-soap gives only its attributes; its value is the empty string.
    out(path, '');
  }
  for (const [k, v] of Object.entries(value)) {
    if (k === 'attributes' || k === '$attributes' || k === '$value') continue;
    const sub = desc && typeof desc === 'object' ? desc[k] || desc[k + '[]'] : null;
    if (desc && typeof desc === 'object' && (k + '[]') in desc) {
      (Array.isArray(v) ? v : [v]).forEach((x, i) => walk(path + '.' + k + '.' + i, x, sub));
    } else {
      walk(path + '.' + k, v, sub);
    }
  }
}

// portOf finds the first port whose binding is of the SOAP version, from
// the WSDL's text (node-soap keeps no version per binding).
function portOf(client, version) {
  const xml = client.wsdl.xml;
  const prefixes = new Set();
  for (const m of xml.matchAll(/xmlns:([\w.-]+)\s*=\s*["']([^"']*)["']/g)) if (m[2] === SOAP12) prefixes.add(m[1]);
  for (const [svcName, svc] of Object.entries(client.wsdl.definitions.services)) {
    for (const [portName, port] of Object.entries(svc.ports)) {
      const re = new RegExp('<(?:[\\w.-]+:)?binding\\s[^>]*name\\s*=\\s*["\']' + bindingName(client, port) + '["\'][^>]*>\\s*(?:<!--[\\s\\S]*?-->\\s*)*<([\\w.-]+):binding');
      const m = xml.match(re);
      const is12 = m ? prefixes.has(m[1]) : false;
      if (is12 === (version === '1.2')) return { svcName, portName, port };
    }
  }
  throw new Error('the WSDL has no SOAP ' + version + ' port');
}
function bindingName(client, port) {
  for (const [name, b] of Object.entries(client.wsdl.definitions.bindings)) if (b === port.binding) return name;
  return '';
}

// elementNamespace returns the target namespace of the schema that declares
// the global element name, or undefined.
function elementNamespace(client, name) {
  for (const [ns, schema] of Object.entries(client.wsdl.definitions.schemas)) {
    if (schema.elements && schema.elements[name]) return ns;
  }
  return undefined;
}

// attributeNames lists the attribute names the WSDL's schema declares,
// which node-soap wants under "attributes".
function attributeNames(client) {
  const names = new Set();
  for (const m of client.wsdl.xml.matchAll(/<(?:[\w.-]+:)?attribute\s[^>]*name\s*=\s*["']([^"']+)["']/g)) names.add(m[1]);
  return names;
}

async function call(client, version, c) {
  const { svcName, portName } = portOf(client, version);
  const method = client[svcName][portName][c.op];
  if (!method) throw new Error('no operation ' + c.op);
  const binding = client.wsdl.definitions.services[svcName].ports[portName].binding;
  const op = binding.methods[c.op];
  const inName = op.input && op.input.$name;
  const wrapped = binding.style === 'rpc' || inName === c.op;
  const args = nest(c.args);
  const attrs = attributeNames(client);
  let input;
  if (wrapped) {
    input = toNode(args, attrs);
  } else {
    const extra = Object.keys(args).filter((k) => k !== inName);
    if (extra.length) throw new Error(c.op + ' takes no argument ' + extra);
    input = toNode(args[inName] === undefined ? {} : args[inName], attrs);
  }
  const described = client.describe()[svcName][portName][c.op];
  input = order(client, input, described.input);
  const desc = described.output;
  client.clearSoapHeaders();
  for (const [el, value] of Object.entries(nest(c.headers || {}))) {
    const ns = elementNamespace(client, el);
    if (!ns) throw new Error(c.op + ' takes no argument ' + el + ' (no schema declares it)');
    client.addSoapHeader({ [el]: value }, '', 'tns', ns);
  }
  const [result, soapHeader] = await new Promise((resolve, reject) => {
    method(input, (err, res, raw, header) => (err ? reject(err) : resolve([res, header])));
  });
  for (const [k, v] of Object.entries(soapHeader || {})) {
    if (k !== 'attributes' && k !== '$attributes') walk('header.' + k, v, null);
  }
  if (!wrapped) {
    walk(op.output.$name, result, desc);
    return;
  }
  if (result === null || result === undefined) return;
  for (const [k, v] of Object.entries(result)) {
    if (k === 'attributes' || k === '$attributes') continue;
    const sub = desc && typeof desc === 'object' ? desc[k] || desc[k + '[]'] : null;
    if (desc && typeof desc === 'object' && (k + '[]') in desc) {
      (Array.isArray(v) ? v : [v]).forEach((x, i) => walk(k + '.' + i, x, sub));
    } else {
      walk(k, v, sub);
    }
  }
}

function printFault(err) {
  const body = err.root && err.root.Envelope && err.root.Envelope.Body;
  const f = body && body.Fault;
  if (!f) {
    out('error', String(err && err.message ? err.message : err));
    return;
  }
  if (f.faultcode !== undefined) {
    out('fault.code', f.faultcode);
    out('fault.string', f.faultstring);
    if (f.detail && typeof f.detail === 'object') for (const [k, v] of Object.entries(f.detail)) walk('fault.detail.' + k, v, null);
    return;
  }
  const val = (x) => (x && typeof x === 'object' && '$value' in x ? x.$value : x);
  out('fault.code', val(f.Code && f.Code.Value));
  if (f.Code && f.Code.Subcode) out('fault.subcode', val(f.Code.Subcode.Value));
  out('fault.string', val(f.Reason && f.Reason.Text));
  if (f.Detail && typeof f.Detail === 'object') for (const [k, v] of Object.entries(f.Detail)) walk('fault.detail.' + k, v, null);
}

async function main() {
  const wsdl = process.argv[3];
  const endpoint = process.argv[4] && process.argv[4] !== '-' ? process.argv[4] : null;
  const { calls } = JSON.parse(fs.readFileSync(0, 'utf8'));
  const clients = {};
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i];
    const version = c.version || '1.1';
    if (i) process.stdout.write('--\n');
    if (!clients[version]) {
      // disableCache: node-soap caches a parsed WSDL with the options of
      // its first client, so a 1.1 client made after a 1.2 one would send 1.2.
      clients[version] = await soap.createClientAsync(wsdl, { disableCache: true, forceSoap12Headers: version === '1.2' });
    }
    const client = clients[version];
    if (endpoint) client.setEndpoint(endpoint);
    try {
      await call(client, version, c);
    } catch (err) {
      if (err && /^no operation|takes no argument/.test(err.message)) throw err;
      printFault(err);
    }
  }
}

main().catch((err) => {
  process.stderr.write('node-soap client failed: ' + ((err && err.stack) || err) + '\n');
  process.exit(1);
});
