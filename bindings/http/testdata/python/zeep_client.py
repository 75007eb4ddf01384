"""zeep (python3-zeep) client for soapwire's interop tests.

Loads the WSDL at argv[1] (argv[2] == "soap12" picks the SOAP 1.2 port), calls
every operation of the interop service and prints one JSON object with the
results. Run with /usr/bin/python3. No network: the WSDL must not import
remote schemas.
"""
import json
import sys

import zeep
from lxml import etree


def main():
    client = zeep.Client(sys.argv[1])
    service = client.service
    if len(sys.argv) > 2 and sys.argv[2] == "soap12":
        for svc in client.wsdl.services.values():
            for name, port in svc.ports.items():
                if "12" in port.binding.name.localname or port.binding.__class__.__name__ == "Soap12Binding":
                    service = client.bind(svc.name, name)
    out = {}
    out["echoString"] = service.echoString(message="héllo & <world>")
    out["add"] = int(service.add(a=40, b=2))
    r = service.echoStruct(value={"name": "widget", "count": 3, "score": 2.5, "tags": ["a", "b", "c"]})
    out["echoStruct"] = {"name": r["name"], "count": int(r["count"]), "score": float(r["score"]),
                         "tags": list(r["tags"] or [])}
    try:
        service.fail(reason="boom")
        out["fail"] = {"error": "no fault"}
    except zeep.exceptions.Fault as f:
        detail = etree.tostring(f.detail).decode() if f.detail is not None else None
        out["fail"] = {"code": str(f.code), "string": f.message, "detail": detail}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
