"""Load a WSDL file with zeep; print its ports, operations and types.

Usage: zeep_load.py WSDL_FILE SOAP_ENCODING_XSD TARGET_NAMESPACE

zeep parses the schema, messages, portType, both bindings and the service;
a type or element that does not resolve is an error. The SOAP encoding
schema is read from the given local file (no network here).
"""
import json
import sys

import zeep
from zeep.transports import Transport

SOAPENC = "http://schemas.xmlsoap.org/soap/encoding/"


class LocalTransport(Transport):
    def load(self, url):
        if url.rstrip("/") == SOAPENC.rstrip("/"):
            with open(sys.argv[2], "rb") as f:
                return f.read()
        return super().load(url)


def main():
    client = zeep.Client(sys.argv[1], transport=LocalTransport())
    out = {}
    for service in client.wsdl.services.values():
        for port in service.ports.values():
            ops = {}
            for name, op in port.binding._operations.items():
                ops[name] = op.input.signature(as_output=False)
            out[port.name] = {"address": port.binding_options["address"], "operations": ops}
    types = {}
    for t in client.wsdl.types.types:
        if t.qname is not None and t.qname.namespace == sys.argv[3]:
            types[t.qname.localname] = t.signature(schema=client.wsdl.types)
    print(json.dumps({"ports": out, "types": types}, sort_keys=True))


if __name__ == "__main__":
    main()
