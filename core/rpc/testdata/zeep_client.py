"""Call the soapwire example service with zeep and print the results as JSON.

Usage: zeep_client.py WSDL_URL [soap11|soap12]

The service (see core/rpc/zeep_test.go) has echoString, add, echoStruct and
fail (which answers with a fault carrying a detail). zeep resolves the SOAP
encoding schema over HTTP; this machine has no network, so a local copy
(soap-encoding.xsd next to this script) answers for it.
"""
import json
import os
import sys

import zeep
from zeep.exceptions import Fault
from zeep.transports import Transport

HERE = os.path.dirname(os.path.abspath(__file__))
SOAPENC = "http://schemas.xmlsoap.org/soap/encoding/"


class LocalTransport(Transport):
    def load(self, url):
        if url.rstrip("/") == SOAPENC.rstrip("/"):
            with open(os.path.join(HERE, "soap-encoding.xsd"), "rb") as f:
                return f.read()
        return super().load(url)


def main():
    wsdl = sys.argv[1]
    binding = sys.argv[2] if len(sys.argv) > 2 else "soap11"
    client = zeep.Client(wsdl, transport=LocalTransport())
    port = {"soap11": "EchoServiceSoap11", "soap12": "EchoServiceSoap12"}[binding]
    svc = client.bind("EchoService", port)
    out = {}

    out["echoString"] = svc.echoString(s="héllo <&> wörld")
    out["add"] = svc.add(a=40, b=2)
    rec = svc.echoStruct(record={"name": "n1", "count": 7, "score": 2.5, "tags": ["a", "b", "c"]})
    out["echoStruct"] = {
        "name": rec.name,
        "count": rec.count,
        "score": rec.score,
        "tags": list(rec.tags or []),
    }
    cnt = svc.counter(value=4, step=1)
    out["counter"] = {"return": cnt["return"], "value": cnt["value"], "doubled": cnt["doubled"]}

    try:
        svc.fail(reason="no such account")
        out["fail"] = {"raised": False}
    except Fault as f:
        detail = None
        if f.detail is not None:
            from lxml import etree
            detail = etree.tostring(f.detail, encoding="unicode")
        out["fail"] = {
            "raised": True,
            "code": str(f.code),
            "message": f.message,
            "detail": detail,
            "subcodes": [str(s) for s in (f.subcodes or [])],
        }
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
