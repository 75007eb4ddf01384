"""spyne server of soapwire's interop harness (internal/interop).

Usage: spyne_server.py calc-qualified|calc-bare|calc-headers

Serves the operations of the harness's contract with spyne's own model of
it (spyne writes its WSDL from the model; it cannot serve a given WSDL) on
127.0.0.1, SOAP 1.1 at /soap11 and SOAP 1.2 at /soap12, each with its WSDL
at ?wsdl; prints "listening PORT" and exits when standard input closes.
Requests are validated against spyne's schema (lxml), so an element in the
wrong namespace is refused with a fault. Run with /usr/bin/python3
(Debian's python3-spyne).

Where spyne's model differs from the contract: its wrapper and message
types are named complex types (the contract's are anonymous), it declares
a global element per complex type (Person, Address, Operands), its
soapAction is the operation's name, fail declares no wsdl:fault (the
fault's detail is written by hand, in the contract's namespace), the
wrapped contract's responses have one element each as in the contract;
calc-headers' Session and Trace are the header parts of spyne's messages
(_in_header, _out_header) as in the contract, the Trace declared on
echoString only.
"""
import socketserver
import sys
import threading
import os
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from spyne import Application, ComplexModel, Fault, Integer32, ServiceBase, Unicode, XmlAttribute, rpc
from spyne.protocol.soap import Soap11, Soap12
from spyne.server.wsgi import WsgiApplication


def required(t):
    return t(min_occurs=1, nillable=False)


def types(ns):
    class Address(ComplexModel):
        __namespace__ = ns
        _type_info = [
            ("street", required(Unicode)),
            ("city", required(Unicode)),
            ("country", XmlAttribute(Unicode)),
        ]

    class Person(ComplexModel):
        __namespace__ = ns
        _type_info = [
            ("name", required(Unicode)),
            ("age", required(Integer32)),
            ("address", Address.customize(min_occurs=1, nillable=False)),
            ("tags", Unicode(max_occurs="unbounded", nillable=False)),
            ("nickname", Unicode(min_occurs=0, nillable=False)),
            ("note", Unicode(min_occurs=1, nillable=True)),
            ("id", XmlAttribute(Integer32)),
        ]

    return Address, Person


def refuse(ns, code):
    """refuse raises the contract's fault: Client (Sender in SOAP 1.2), with
    the detail CalcFault{code, message} in the contract's namespace."""
    q = lambda local: "{%s}%s" % (ns, local)  # noqa: E731 (Clark notation: spyne qualifies the element)
    detail = {q("CalcFault"): {q("code"): code, q("message"): "failure %s as asked" % code}}
    raise Fault(faultcode="Client", faultstring="calc refused: " + code, detail=detail)


def qualified():
    ns = "urn:soapwire:interop:calc"
    Address, Person = types(ns)

    class Calc(ServiceBase):
        @rpc(required(Unicode), _returns=required(Unicode), _out_variable_name="return")
        def echoString(ctx, s):
            return s

        @rpc(required(Integer32), required(Integer32), _returns=required(Integer32), _out_variable_name="result")
        def add(ctx, a, b):
            return a + b

        @rpc(Person.customize(min_occurs=1, nillable=False), _returns=Person.customize(min_occurs=1, nillable=False),
             _out_variable_name="return")
        def echoStruct(ctx, person):
            return person

        @rpc(required(Unicode))
        def fail(ctx, code):
            refuse(ns, code)

    return ns, "CalcService", Calc


def bare():
    ns = "urn:soapwire:interop:calc-bare"
    Address, Person = types(ns)

    class Operands(ComplexModel):
        __namespace__ = ns
        _type_info = [("a", required(Integer32)), ("b", required(Integer32))]

    class CalcBare(ServiceBase):
        @rpc(required(Unicode), _body_style="bare", _in_message_name="EchoText",
             _out_message_name="EchoedText", _returns=required(Unicode))
        def echoString(ctx, text):
            return text

        @rpc(Operands, _body_style="bare", _in_message_name="Operands", _out_message_name="Sum",
             _returns=required(Integer32))
        def add(ctx, operands):
            return operands.a + operands.b

        @rpc(Person, _body_style="bare", _in_message_name="Traveller", _out_message_name="Returned",
             _returns=Person)
        def echoStruct(ctx, person):
            return person

        @rpc(required(Unicode), _body_style="bare", _in_message_name="FailCode", _out_message_name="FailAck",
             _returns=required(Unicode))
        def fail(ctx, code):
            refuse(ns, code)

    return ns, "CalcBareService", CalcBare


def headers():
    """headers is calc-headers: a Session header block in (optional), a
    Trace block out of echoString (when the request had a Session)."""
    ns = "urn:soapwire:interop:calc-headers"

    class Session(ComplexModel):
        __namespace__ = ns
        _type_info = [("token", required(Unicode))]

    class Trace(ComplexModel):
        __namespace__ = ns
        _type_info = [("session", required(Unicode)), ("operation", required(Unicode))]

    class CalcHeaders(ServiceBase):
        @rpc(required(Unicode), _returns=required(Unicode), _out_variable_name="return",
             _in_header=(Session,), _out_header=(Trace,))
        def echoString(ctx, s):
            session = ctx.in_header
            if isinstance(session, (tuple, list)):
                session = session[0] if session else None
            if session is not None:
                ctx.out_header = (Trace(session=session.token, operation="echoString"),)
            return s

        @rpc(required(Integer32), required(Integer32), _returns=required(Integer32), _out_variable_name="result",
             _in_header=(Session,))
        def add(ctx, a, b):
            return a + b

        @rpc(required(Unicode), _in_header=(Session,))
        def fail(ctx, code):
            refuse(ns, code)

    return ns, "CalcHeadersService", CalcHeaders


class Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


def main():
    ns, name, service = {"calc-qualified": qualified, "calc-bare": bare, "calc-headers": headers}[sys.argv[1]]()
    apps = {}
    for path, proto in (("/soap11", Soap11), ("/soap12", Soap12)):
        app = Application([service], tns=ns, name=name, in_protocol=proto(validator="lxml"), out_protocol=proto())
        apps[path] = WsgiApplication(app)

    def dispatch(environ, start_response):
        app = apps.get(environ.get("PATH_INFO", "").rstrip("/"))
        if app is None:
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"no such path; the service is at /soap11 and /soap12\n"]
        return app(environ, start_response)

    srv = make_server("127.0.0.1", 0, dispatch, server_class=Server, handler_class=Quiet)
    print("listening", srv.server_port, flush=True)

    def stop_when_stdin_closes():
        while sys.stdin.buffer.read(64):
            pass
        os._exit(0)

    threading.Thread(target=stop_when_stdin_closes, daemon=True).start()
    srv.serve_forever()


if __name__ == "__main__":
    main()
