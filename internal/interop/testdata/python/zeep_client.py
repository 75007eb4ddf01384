"""zeep client of soapwire's interop harness (internal/interop).

Usage: zeep_client.py CATALOG_DIR WSDL [ENDPOINT] < calls.json

Loads WSDL (a file or a URL) offline: schema URLs in the catalog are read
from CATALOG_DIR, other URLs only when they are on loopback. Each call goes
through the first port of its SOAP version (to ENDPOINT when given, else to
the port's address) and prints what came back in the text form of peer.py;
header blocks (a call's "headers", by element name) go as zeep's
_soapheaders, and the reply's declared header blocks print at header.ELEMENT.
Run with /usr/bin/python3 (Debian's python3-zeep).
"""
import sys

import zeep
from lxml import etree
from zeep.exceptions import Fault
from zeep.transports import Transport

import peer


class OfflineTransport(Transport):
    def __init__(self, catalog):
        super().__init__()
        self.catalog = catalog

    def load(self, url):
        local = self.catalog.find(url)
        if local:
            with open(local, "rb") as f:
                return f.read()
        if url.startswith(("http://", "https://")) and not peer.loopback(url):
            raise IOError("%s is not in the catalog and this peer is offline" % url)
        return super().load(url)


def binding_of(client, version):
    kind = {"1.1": "Soap11Binding", "1.2": "Soap12Binding"}[version]
    for service in client.wsdl.services.values():
        for port in service.ports.values():
            if type(port.binding).__name__ == kind:
                return port
    raise LookupError("the WSDL has no SOAP %s port" % version)


XSI_NIL = "{http://www.w3.org/2001/XMLSchema-instance}nil"


def is_nil(node):
    return node is not None and node.get(XSI_NIL) in ("true", "1")


def emit(path, value, element, nodes):
    """emit prints value, read by zeep for element (an Element or an
    Attribute). nodes are the reply's XML elements it was read from (None
    when unknown): zeep reads an empty element, an absent one and a nil one
    all as None, and the XML tells them apart."""
    if value is None:
        if nodes:
            if is_nil(nodes[0]):
                peer.out_nil(path)
            else:
                peer.out(path, "")
        elif nodes is None and getattr(element, "nillable", False):
            peer.out_nil(path)
        return
    if isinstance(value, list) and getattr(element, "accepts_multiple", False):
        for i, v in enumerate(value):
            emit_one("%s.%d" % (path, i), v, nodes[i] if nodes and i < len(nodes) else None)
        return
    emit_one(path, value, nodes[0] if nodes else None)


def emit_one(path, value, node):
    if value is None:
        if node is not None and not is_nil(node):
            peer.out(path, "")
        else:
            peer.out_nil(path)
        return
    if isinstance(value, list):  # a SOAP-ENC array
        items = list(node) if node is not None else []
        for i, v in enumerate(value):
            emit_one("%s.%d" % (path, i), v, items[i] if i < len(items) else None)
        return
    if hasattr(value, "_xsd_type") and hasattr(value, "_value_1") and len(value) == 1 and isinstance(value._value_1, list):
        emit_one(path, value._value_1, node)  # a SOAP-ENC array: zeep reads its items as a sequence of any
        return
    xsd_type = getattr(value, "_xsd_type", None)
    if xsd_type is not None:
        emit_children(path + ".", value, xsd_type, node)
        return
    peer.out(path, value)


def emit_children(prefix, value, xsd_type, node):
    for name, attr in xsd_type.attributes:
        emit(prefix + name, value[name], attr, None)
    for name, el in xsd_type.elements:
        nodes = node.findall(el.qname) if node is not None and hasattr(el, "qname") else None
        emit(prefix + name, value[name], el, nodes)


def soapheaders(operation, headers):
    """soapheaders returns zeep's _soapheaders for the harness's header
    arguments ({"Session": {"token": ...}} by element name): zeep names a
    header by its part ("session")."""
    if not headers:
        return None
    header = operation.input.header
    out = {}
    for name, el in (header.type.elements if header is not None else []):
        local = el.qname.localname if hasattr(el, "qname") else name
        if local in headers:
            out[name] = headers.pop(local)
    if headers:
        raise ValueError("%s has no header part of element %s" % (operation.name, ", ".join(headers)))
    return out


def emit_headers(operation, doc):
    """emit_headers prints the reply's header blocks that the output
    declares, read by zeep's parser of them, at header.ELEMENT..."""
    header = operation.output.header
    el = doc.find("soap-env:Header", namespaces=operation.output.nsmap)
    if header is None or el is None:
        return
    parsed = operation.output._deserialize_headers(el).get("header")
    if parsed is None:
        return
    for name, part in header.type.elements:
        value = parsed[name]
        nodes = el.findall(part.qname)
        if value is None and not nodes:
            continue
        emit("header." + part.qname.localname, value, part, nodes)


def call(client, service, binding, operation, args, headers=None):
    """call sends the operation and prints the reply's values. It reads the
    reply with zeep's own parser of the body (its schema codec) but not
    zeep's unwrapping of the result, which fails on a bare reply whose
    element has a simple type other than string (zeep 4.2.1: "object of type
    'int' has no len()") and hides the names of a wrapper's children."""
    body_in = operation.input.body
    wrapped = body_in is not None and body_in.qname.localname == operation.name
    args = peer.nest(args)
    extra = {}
    sh = soapheaders(operation, peer.nest(headers or {}))
    if sh:
        extra["_soapheaders"] = sh
    method = getattr(service, operation.name)
    with client.settings(raw_response=True):
        if wrapped:
            response = method(**args, **extra)
        else:
            root = args.get(body_in.qname.localname) if body_in is not None else None
            response = method(**root, **extra) if isinstance(root, dict) else method(root, **extra)
    doc = etree.fromstring(response.content)
    if doc.find("soap-env:Body/soap-env:Fault", namespaces=binding.nsmap) is not None:
        binding.process_error(doc, operation)  # raises the Fault
    emit_headers(operation, doc)
    body_out = operation.output.body
    if body_out is None:
        return
    body = doc.find("soap-env:Body", namespaces=operation.output.nsmap)
    if body is None:
        raise ValueError("the reply has no SOAP %s Body (HTTP %d): %r" % (binding.nsmap["soap-env"], response.status_code, response.content[:200]))
    value = operation.output._deserialize_body(body)["body"]
    child = next((c for c in body if isinstance(c.tag, str)), None)
    if not wrapped:
        emit(body_out.qname.localname, value, body_out, [child] if child is not None else [])
        return
    if value is not None:
        emit_children("", value, body_out.type, child)


def main():
    catalog = peer.Catalog(sys.argv[1])
    wsdl = sys.argv[2]
    endpoint = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] != "-" else None
    client = zeep.Client(wsdl, transport=OfflineTransport(catalog))
    for i, c in enumerate(peer.read_calls()):
        if i:
            print("--")
        port = binding_of(client, c.get("version") or "1.1")
        service = client.create_service(port.binding.name, endpoint or port.binding_options["address"])
        operation = port.binding._operations[c["op"]]
        try:
            call(client, service, port.binding, operation, c.get("args") or {}, c.get("headers"))
        except Fault as f:
            peer.out("fault.code", f.code)
            for s in f.subcodes or []:
                peer.out("fault.subcode", s)
            peer.out("fault.string", f.message)
            if f.detail is not None:
                for child in f.detail:
                    if isinstance(child.tag, str):
                        peer.out_xml("fault.detail." + peer.local(child.tag), child)
        except Exception as e:  # an error that is not a fault: the test sees it
            peer.out("error", "%s: %s" % (type(e).__name__, e))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
