"""suds client of soapwire's interop harness (internal/interop).

Usage: suds_client.py CATALOG_DIR WSDL [ENDPOINT] < calls.json

Loads WSDL (a file or a URL) offline: schema URLs in the catalog are read
from CATALOG_DIR, other URLs only when they are on loopback. suds speaks
SOAP 1.1 only: each call goes through the WSDL's first SOAP 1.1 port (to
ENDPOINT when given) and prints what came back in the text form of peer.py;
header blocks (a call's "headers", by element name) go as suds's
soapheaders, and the reply's declared header blocks print at
header.ELEMENT (read from the reply suds received: suds has no API for
them).
Run with /usr/bin/python3 (Debian's python3-suds, suds-community).
"""
import os
import sys
import xml.etree.ElementTree as ET

from suds import WebFault
from suds.client import Client
from suds.store import DocumentStore
from suds.transport.http import HttpTransport

import peer

SOAP11 = "http://schemas.xmlsoap.org/wsdl/soap/"


class OfflineTransport(HttpTransport):
    def open(self, request):
        if request.url.startswith(("http://", "https://")) and not peer.loopback(request.url):
            raise IOError("%s is not in the catalog and this peer is offline" % request.url)
        return HttpTransport.open(self, request)


def store(catalog):
    docs = {}
    for url, name in catalog.map.items():
        with open(os.path.join(catalog.folder, name), "rb") as f:
            docs[url.split("://", 1)[-1]] = f.read()
    return DocumentStore(docs)


def soap11_port(client):
    for service in client.wsdl.services:
        for port in service.ports:
            for child in port.binding.root.children:
                if child.name == "binding" and child.namespace()[1] == SOAP11:
                    return port
    raise LookupError("the WSDL has no SOAP 1.1 port")


def schema_children(sobj):
    """schema_children maps the names of a schema object's child elements
    and attributes to (schema object, is attribute)."""
    kids = {}
    if sobj is None:
        return kids
    t = sobj.resolve()
    for child, _ in t.children():
        kids[child.name] = (child, False)
    for attr, _ in t.attributes():
        kids[attr.name] = (attr, True)
    return kids


def to_suds(value, sobj):
    """to_suds renames the attributes of a nested argument '_name', as
    suds wants them."""
    if isinstance(value, list):
        return [to_suds(v, sobj) for v in value]
    if not isinstance(value, dict):
        return value
    kids = schema_children(sobj)
    out = {}
    for k, v in value.items():
        if sobj is not None and k not in kids:
            raise SystemExit("argument %s: %s has no element or attribute %s (it has %s)" % (k, sobj.name, k, sorted(kids)))
        child, isattr = kids.get(k, (None, False))
        out[("_" + k) if isattr else k] = to_suds(v, child)
    return out


def emit(path, value, sobj):
    if value is None:
        # suds leaves an absent element out of its object, and reads an
        # element that is nil or empty as None: nil when the schema allows
        # it, else the empty string.
        if sobj is not None and not getattr(sobj, "nillable", False):
            peer.out(path, "")
        else:
            peer.out_nil(path)
        return
    if sobj is not None and sobj.multi_occurrence():
        if not isinstance(value, list):  # suds gives one item without its list
            value = [value]
        for i, v in enumerate(value):
            emit_one("%s.%d" % (path, i), v, sobj)
        return
    emit_one(path, value, sobj)


def emit_one(path, value, sobj):
    if value is None:
        peer.out_nil(path)
        return
    if isinstance(value, list):  # a SOAP-ENC array
        for i, v in enumerate(value):
            emit_one("%s.%d" % (path, i), v, None)
        return
    if hasattr(value, "__keylist__"):  # a suds object
        kids = schema_children(sobj)
        for k, v in value:
            name = k[1:] if k.startswith("_") else k
            child, _ = kids.get(name, (None, False))
            emit(path + "." + name, v, child)
        return
    peer.out(path, value)


def emit_children(value, sobj):
    """emit_children prints a wrapper's children (paths below the wrapper)."""
    if value is None:
        return
    kids = schema_children(sobj)
    for k, v in value:
        name = k[1:] if k.startswith("_") else k
        child, _ = kids.get(name, (None, False))
        emit(name, v, child)


def set_headers(client, op, headers):
    """set_headers gives suds the call's header blocks ({"Session":
    {"token": ...}} by element name) as its soapheaders option, keyed as
    suds keys a method's header parts."""
    method = getattr(client.service, op).method
    binding = method.binding.input
    out = {}
    for name, sobj in binding.headpart_types(method):
        if sobj.name in headers:
            out[name] = to_suds(headers.pop(sobj.name), sobj)
    if headers:
        raise SystemExit("%s has no header part of element %s" % (op, sorted(headers)))
    client.set_options(soapheaders=out)


def emit_headers(client, op):
    """emit_headers prints the reply's header blocks the output declares,
    at header.ELEMENT...: suds does not read reply headers (its API has no
    place for them), so they are read from the reply it received."""
    method = getattr(client.service, op).method
    declared = set()
    for h in method.soap.output.headers:
        el = h.part.element
        if el:
            declared.add("{%s}%s" % (el[1], el[0]))
    if not declared:
        return
    doc = ET.fromstring(str(client.last_received()))
    for el in doc:
        if peer.local(el.tag) == "Header":
            for child in el:
                if child.tag in declared:
                    peer.out_xml("header." + peer.local(child.tag), child)


def call(client, op, args, headers=None):
    """call sends op. The client does not unwrap document/literal
    operations (unwrap=False): the argument is the body's element, filled
    from the wrapper's paths (wrapped) or from the paths below the
    element's name (bare)."""
    method = getattr(client.service, op).method
    parts = method.soap.input.body.parts
    document = method.soap.style == "document"
    element = parts[0].element if document and len(parts) == 1 and parts[0].element else None
    wrapped = element is None or element[0] == op  # rpc, or wrapped document
    params = method.binding.input.param_defs(method)
    set_headers(client, op, peer.nest(headers or {}))
    args = peer.nest(args)
    names = {p[0] for p in params}
    if document:
        sobj = params[0][1]
        root = args if wrapped else args.get(element[0])
        if not wrapped and set(args) - {element[0]}:
            raise SystemExit("%s takes no argument %s" % (op, sorted(set(args) - {element[0]})))
        result = getattr(client.service, op)(to_suds(root, sobj))
    else:
        if set(args) - names:
            raise SystemExit("%s takes no argument %s" % (op, sorted(set(args) - names)))
        kwargs = {name: to_suds(args[name], sobj) for name, sobj, *_ in params if name in args}
        result = getattr(client.service, op)(**kwargs)
    emit_headers(client, op)
    returned = method.binding.output.returned_types(method)
    if document:
        out_el = method.soap.output.body.parts[0].element
        rt = returned[0] if returned else None
        if wrapped:
            emit_children(result, rt)
        else:
            emit(out_el[0], result, rt)
        return
    if len(returned) == 1:
        emit(returned[0].name, result, returned[0])
        return
    for rt in returned:
        emit(rt.name, getattr(result, rt.name, None), rt)


def fault_detail(client):
    doc = ET.fromstring(str(client.last_received()))
    for el in doc.iter():
        if el.tag == "detail" or el.tag.endswith("}Detail"):
            for child in el:
                peer.out_xml("fault.detail." + peer.local(child.tag), child)
            return


def main():
    catalog = peer.Catalog(sys.argv[1])
    wsdl = sys.argv[2]
    if "://" not in wsdl:
        wsdl = "file://" + os.path.abspath(wsdl)
    endpoint = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] != "-" else None
    client = Client(wsdl, cache=None, unwrap=False, documentStore=store(catalog), transport=OfflineTransport())
    port = soap11_port(client)
    client.set_options(port=port.name, location=endpoint or port.location)
    for i, c in enumerate(peer.read_calls()):
        if i:
            print("--")
        if (c.get("version") or "1.1") != "1.1":
            raise SystemExit("suds speaks SOAP 1.1 only; asked for %s" % c["version"])
        try:
            call(client, c["op"], c.get("args") or {}, c.get("headers"))
        except WebFault as e:
            f = e.fault
            peer.out("fault.code", f.faultcode)
            peer.out("fault.string", f.faultstring)
            fault_detail(client)
        except Exception as e:  # an error that is not a fault: the test sees it
            peer.out("error", "%s: %s" % (type(e).__name__, e))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
