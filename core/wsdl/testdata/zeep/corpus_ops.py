"""Load every contract of the WSDL corpus with zeep, offline, and print what
zeep derives: for each service port, its binding kind and operations.

Usage: corpus_ops.py CORPUS_DIR EXTRA_CATALOG_DIR

Schemas imported by URL are read from the corpus catalog (catalog/catalog.json);
EXTRA_CATALOG_DIR holds more local copies named after their namespace (the
SOAP 1.2 encoding schema soapwire ships); any other URL fails, as there is no
network. Prints one JSON object: {case: {"error": str} or {"ports": {...}}}.
"""
import json
import os
import sys
import warnings

import zeep
from zeep.settings import Settings
from zeep.transports import Transport

CORPUS, EXTRA = sys.argv[1], sys.argv[2]
CATALOG = json.load(open(os.path.join(CORPUS, "catalog", "catalog.json")))["map"]
MORE = {
    "http://www.w3.org/2003/05/soap-encoding": os.path.join(EXTRA, "soap12-encoding.xsd"),
}


class Offline(Transport):
    def load(self, url):
        if url in CATALOG:
            with open(os.path.join(CORPUS, "catalog", CATALOG[url]), "rb") as f:
                return f.read()
        if url.rstrip("/") in MORE:
            with open(MORE[url.rstrip("/")], "rb") as f:
                return f.read()
        if url.startswith(("http://", "https://")):
            raise IOError("offline: no copy of " + url)
        return super().load(url)


def kind(binding):
    name = type(binding).__name__
    return {"Soap11Binding": "SOAP 1.1", "Soap12Binding": "SOAP 1.2", "HttpGetBinding": "HTTP", "HttpPostBinding": "HTTP"}.get(name, name)


def main():
    warnings.simplefilter("ignore")
    cases = json.load(open(os.path.join(CORPUS, "index.json")))["cases"]
    out = {}
    for cid, c in sorted(cases.items()):
        path = os.path.join(CORPUS, "cases", cid, c["entry"])
        try:
            client = zeep.Client(path, transport=Offline(), settings=Settings(strict=False, forbid_dtd=False, forbid_entities=False))
        except Exception as e:  # what zeep cannot load is reported, not hidden
            out[cid] = {"error": "%s: %s" % (type(e).__name__, str(e)[:300])}
            continue
        ports = {}
        for service in client.wsdl.services.values():
            for port in service.ports.values():
                ports[service.name + "/" + port.name] = {
                    "kind": kind(port.binding),
                    "operations": sorted(port.binding._operations.keys()),
                }
        out[cid] = {"ports": ports}
    json.dump(out, sys.stdout, sort_keys=True, indent=1)


if __name__ == "__main__":
    main()
