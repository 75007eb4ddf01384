"""suds (python3-suds) client for soapwire's interop tests.

Loads the WSDL at argv[1], calls every operation of the interop service and
prints one JSON object with the results. Run with /usr/bin/python3.
"""
import json
import sys

from suds import WebFault
from suds.client import Client


def main():
    client = Client(sys.argv[1], cache=None)
    out = {}
    out["echoString"] = str(client.service.echoString(message="héllo & <world>"))
    out["add"] = int(client.service.add(a=40, b=2))
    item = client.factory.create("{urn:soapwire:interop}Item")
    item.name, item.count, item.score, item.tags = "widget", 3, 2.5, ["a", "b", "c"]
    r = client.service.echoStruct(value=item)
    out["echoStruct"] = {"name": str(r.name), "count": int(r.count), "score": float(r.score),
                         "tags": [str(t) for t in (r.tags or [])]}
    try:
        client.service.fail(reason="boom")
        out["fail"] = {"error": "no fault"}
    except WebFault as e:
        f = e.fault
        detail = getattr(f, "detail", None)
        out["fail"] = {"code": str(f.faultcode), "string": str(f.faultstring), "detail": str(detail)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
