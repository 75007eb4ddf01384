"""What zeep derives from a WSDL, for soapwire's interop harness (internal/interop).

Usage: zeep_describe.py CATALOG_DIR WSDL

Loads WSDL offline as zeep_client.py does and prints one JSON object per
operation of every port (services and ports in document order, operations
by name): service, port, binding ("soap11", "soap12" or zeep's class name
for another binding), operation, signature (as `python -m zeep WSDL`
prints it) and action. A WSDL zeep cannot load exits with status 3 and
zeep's error on standard error. Run with /usr/bin/python3.
"""
import json
import sys

import zeep

import peer
from zeep_client import OfflineTransport

KINDS = {"Soap11Binding": "soap11", "Soap12Binding": "soap12"}


def main():
    catalog = peer.Catalog(sys.argv[1])
    try:
        client = zeep.Client(sys.argv[2], transport=OfflineTransport(catalog))
    except Exception as e:  # zeep's refusal is the answer
        sys.stderr.write("%s: %s\n" % (type(e).__name__, e))
        sys.exit(3)
    for service in client.wsdl.services.values():
        for port in service.ports.values():
            kind = type(port.binding).__name__
            for name, op in sorted(port.binding._operations.items()):
                print(json.dumps({
                    "service": service.name, "port": port.name, "binding": KINDS.get(kind, kind),
                    "operation": name, "signature": str(op), "action": getattr(op, "soapaction", "") or "",
                }, ensure_ascii=False))


if __name__ == "__main__":
    main()
