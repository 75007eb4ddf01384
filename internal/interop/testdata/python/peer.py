"""What the Python peers of soapwire's interop harness share (internal/interop).

The text form of values (one line per value):
    PATH=JSON-STRING   a value, as its XML text ("42", "true", "héllo")
    PATH=nil           an element read as xsi:nil
An absent element prints no line; the calls of one run are separated by a
line "--". Paths: below the operation's wrapper for wrapped and rpc
operations ("person.address.city", "person.tags.0"), below the Body for bare
ones, starting with the part's element ("Traveller.name"); attributes are
named like child elements; a fault prints fault.code, fault.subcode,
fault.string and fault.detail.ELEMENT...; an error that is not a fault
prints error.

Arguments come as JSON on standard input:
    {"calls": [{"op": "add", "version": "1.1", "args": {"a": 40, "b": 2}}]}
with the same paths; null is xsi:nil. A call's "headers" are its header
blocks by element name ({"Session.token": "t"}); a reply's header blocks
print at header.ELEMENT... ("header.Trace.session").
"""
import json
import os
import sys
from urllib.parse import urlparse


def out(path, value):
    print("%s=%s" % (path, json.dumps(text(value), ensure_ascii=False)))


def out_nil(path):
    print("%s=nil" % path)


def text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return str(v)


def nest(args):
    """nest turns {"person.name": "Ada", "person.tags.0": "a"} into nested
    dicts and lists: {"person": {"name": "Ada", "tags": ["a"]}}."""
    root = {}
    for path, value in args.items():
        keys = path.split(".")
        node = root
        for i, k in enumerate(keys):
            last = i == len(keys) - 1
            if last:
                node[k] = value
            else:
                node = node.setdefault(k, {})
    return lists(root)


def lists(node):
    if not isinstance(node, dict):
        return node
    if node and all(k.isdigit() for k in node):
        return [lists(node[k]) for k in sorted(node, key=int)]
    return {k: lists(v) for k, v in node.items()}


def local(tag):
    return tag.rsplit("}", 1)[-1]


def out_xml(path, el):
    """out_xml prints an lxml element's content by local names (a fault's
    detail): attributes, then children (repeated names get .N), or text."""
    xsi_nil = el.get("{http://www.w3.org/2001/XMLSchema-instance}nil")
    if xsi_nil in ("true", "1"):
        out_nil(path)
        return
    for k, v in el.attrib.items():
        if not k.startswith("{http://www.w3.org/2001/XMLSchema-instance}"):
            out(path + "." + local(k), v)
    children = [c for c in el if isinstance(c.tag, str)]
    if not children:
        out(path, el.text or "")
        return
    names = [local(c.tag) for c in children]
    seen = {}
    for c, n in zip(children, names):
        if names.count(n) > 1:
            i = seen.get(n, 0)
            seen[n] = i + 1
            out_xml("%s.%s.%d" % (path, n, i), c)
        else:
            out_xml(path + "." + n, c)


class Catalog:
    """Catalog maps remote schema URLs to local files (catalog.json's "map"),
    so no peer reaches for the network."""

    def __init__(self, folder):
        self.folder = folder
        with open(os.path.join(folder, "catalog.json")) as f:
            self.map = json.load(f)["map"]

    def find(self, url):
        name = self.map.get(url) or self.map.get(url.rstrip("/"))
        return os.path.join(self.folder, name) if name else None


def loopback(url):
    host = urlparse(url).hostname or ""
    return host in ("127.0.0.1", "localhost", "::1")


def read_calls():
    return json.load(sys.stdin)["calls"]
