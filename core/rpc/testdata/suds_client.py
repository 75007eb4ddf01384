"""Call the soapwire example service with suds and print the results as JSON.

Usage: suds_client.py WSDL_URL

suds speaks SOAP 1.1 only; it uses the SOAP 1.1 port of the WSDL.
"""
import json
import sys

from suds import WebFault
from suds.client import Client


def main():
    client = Client(sys.argv[1], port="EchoServiceSoap11", cache=None)
    svc = client.service
    out = {}
    out["echoString"] = svc.echoString("héllo <&> wörld")
    out["add"] = int(svc.add(40, 2))
    rec = client.factory.create("Record")
    rec.name, rec.count, rec.score, rec.tags = "n1", 7, 2.5, ["a", "b", "c"]
    got = svc.echoStruct(rec)
    tags = got.tags
    if hasattr(tags, "item"):
        tags = tags.item
    if isinstance(tags, str):
        tags = [tags]
    out["echoStruct"] = {"name": got.name, "count": int(got.count), "score": float(got.score), "tags": list(tags or [])}
    cnt = svc.counter(4, 1)
    out["counter"] = {"return": int(cnt["return"]), "value": int(cnt.value), "doubled": int(cnt.doubled)}
    try:
        svc.fail("no such account")
        out["fail"] = {"raised": False}
    except WebFault as e:
        f = e.fault
        out["fail"] = {"raised": True, "code": str(f.faultcode), "message": str(f.faultstring),
                       "detail": str(getattr(f, "detail", ""))}
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
