"""zeep client for soapwire's attachment interop tests.

usage: zeep_mtom.py WSDL_URL soap11|soap12 mtom|swa IN OUT

mtom: sends IN's bytes to echoData inline (zeep does not send MTOM) and
reads the reply, an MTOM package whose xop:Include zeep resolves; swa:
calls echoSwA and reads the reply, a SOAP-with-Attachments package (zeep
returns it as a MessagePack), finding the part its ref names. Writes the
reply's bytes to OUT and prints one JSON line.
"""
import json
import sys

import zeep


def main():
    url, binding, kind, in_file, out_file = sys.argv[1:6]
    client = zeep.Client(url)
    port = "MtomSoap12" if binding == "soap12" else "MtomSoap11"
    service = client.bind("Mtom", port)
    with open(in_file, "rb") as f:
        data = f.read()
    out = {}
    if kind == "mtom":
        r = service.echoData(data=data)
        with open(out_file, "wb") as f:
            f.write(r.data)
        out["size"] = r.size
    else:
        pack = service.echoSwA(ref="inline")
        ref = pack.root.ref
        att = pack.get_by_content_id("<" + ref[len("cid:"):] + ">")
        if att is None:
            raise SystemExit("no part named %r among %r" % (ref, pack.attachments))
        with open(out_file, "wb") as f:
            f.write(att.content)
        out["size"] = pack.root.size
        out["type"] = att.content_type
        out["parts"] = len(pack.attachments)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
