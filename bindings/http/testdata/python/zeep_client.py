"""zeep (python3-zeep) client for soapwire's HTTP interop tests.

Usage: zeep_client.py WSDL_URL soap11|soap12

Loads the WSDL of the rpc.Service that bindings/http serves ("?wsdl"), binds
the SOAP 1.1 or 1.2 port, calls every operation and prints one JSON object
with the results. Run with /usr/bin/python3 (Debian's python3-zeep). The
WSDL imports no remote schema, so no network is needed.
"""
import json
import sys

import zeep
from lxml import etree

PORTS = {"soap11": "InteropServiceSoap11", "soap12": "InteropServiceSoap12"}


def main():
    wsdl, binding = sys.argv[1], sys.argv[2]
    client = zeep.Client(wsdl)
    svc = client.bind("InteropService", PORTS[binding])
    out = {}
    out["echoString"] = svc.echoString(message="héllo & <world>")
    out["add"] = int(svc.add(a=40, b=2))
    r = svc.echoStruct(value={"name": "widget", "count": 3, "score": 2.5, "tags": ["a", "b", "c"]})
    out["echoStruct"] = {"name": r["name"], "count": int(r["count"]), "score": float(r["score"]),
                         "tags": list(r["tags"] or [])}
    try:
        svc.fail(reason="boom")
        out["fail"] = {"raised": False}
    except zeep.exceptions.Fault as f:
        detail = etree.tostring(f.detail, encoding="unicode") if f.detail is not None else ""
        out["fail"] = {"raised": True, "code": str(f.code), "message": f.message, "detail": detail,
                       "subcodes": [str(s) for s in (f.subcodes or [])]}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
