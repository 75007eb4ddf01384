"""suds (python3-suds) client for soapwire's HTTP interop tests.

Usage: suds_client.py WSDL_URL

Loads the WSDL of the rpc.Service that bindings/http serves ("?wsdl"), calls
every operation through its SOAP 1.1 port (suds speaks SOAP 1.1 only) and
prints one JSON object with the results. Run with /usr/bin/python3.
"""
import json
import sys

from suds import WebFault
from suds.client import Client


def main():
    client = Client(sys.argv[1], port="InteropServiceSoap11", cache=None)
    svc = client.service
    out = {}
    out["echoString"] = str(svc.echoString(message="héllo & <world>"))
    out["add"] = int(svc.add(a=40, b=2))
    item = client.factory.create("{urn:soapwire:interop}Item")
    item.name, item.count, item.score, item.tags = "widget", 3, 2.5, ["a", "b", "c"]
    r = svc.echoStruct(value=item)
    tags = r.tags or []
    if isinstance(tags, str):
        tags = [tags]
    out["echoStruct"] = {"name": str(r.name), "count": int(r.count), "score": float(r.score),
                         "tags": [str(t) for t in tags]}
    try:
        svc.fail(reason="boom")
        out["fail"] = {"raised": False}
    except WebFault as e:
        f = e.fault
        out["fail"] = {"raised": True, "code": str(f.faultcode), "message": str(f.faultstring),
                       "detail": str(getattr(f, "detail", ""))}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
