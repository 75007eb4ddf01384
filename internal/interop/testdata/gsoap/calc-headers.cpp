// gSOAP peer for calc-headers.wsdl (document/literal wrapped, qualified,
// SOAP 1.1 and 1.2 ports, soap:header parts: a Session block in, a Trace
// block out of echoString), built by internal/interop like
// calc-qualified.cpp. Header blocks are arguments and values named
// header.ELEMENT.CHILD (header.Session.token in, header.Trace.session out);
// see common.h for the command line and the text form.
#include "soapCalcHeadersSoap11Proxy.h"
#include "soapCalcHeadersSoap11Service.h"
#include "CalcHeadersSoap11.nsmap"
#include "common.h"

// Service implements the operations; the trailing-underscore methods are
// wsdl2h's copies for the SOAP 1.2 port. gSOAP keeps the request's header
// in the context and would send it back: each operation sets the reply's.
class Service : public CalcHeadersSoap11Service {
 public:
  using CalcHeadersSoap11Service::CalcHeadersSoap11Service;
  CalcHeadersSoap11Service *copy() override { return new Service(soap_copy(soap)); }
  // session returns the request's Session block, or NULL.
  _hdr__Session *session() { return soap->header ? soap->header->hdr__Session : NULL; }
  int echoString(_hdr__echoString *in, _hdr__echoStringResponse &out) override {
    answer_in_request_version(soap);
    out.return_ = in->s;
    _hdr__Session *s = session();
    if (s) {
      _hdr__Trace *t = soap_new__hdr__Trace(soap);
      t->session = s->token;
      t->operation = "echoString";
      soap_header(NULL, t);
    } else {
      soap_noheader();
    }
    return SOAP_OK;
  }
  int add(_hdr__add *in, _hdr__addResponse &out) override {
    answer_in_request_version(soap);
    soap_noheader();
    out.result = in->a + in->b;
    return SOAP_OK;
  }
  int fail(_hdr__fail *in, _hdr__failResponse &) override {
    answer_in_request_version(soap);
    soap_noheader();
    struct SOAP_ENV__Detail *d = sender_fault(soap, "calc refused: " + in->code);
    d->hdr__CalcFault = soap_new__hdr__CalcFault(soap);
    d->hdr__CalcFault->code = in->code;
    d->hdr__CalcFault->message = "failure " + in->code + " as asked";
    return SOAP_FAULT;
  }
  int echoString_(_hdr__echoString *in, _hdr__echoStringResponse &out) override { return echoString(in, out); }
  int add_(_hdr__add *in, _hdr__addResponse &out) override { return add(in, out); }
  int fail_(_hdr__fail *in, _hdr__failResponse &out) override { return fail(in, out); }
};

static void put_detail(struct SOAP_ENV__Detail *d) {
  if (d->hdr__CalcFault) {
    put("fault.detail.CalcFault.code", d->hdr__CalcFault->code);
    put("fault.detail.CalcFault.message", d->hdr__CalcFault->message);
  }
}

static int call(const char *url, bool soap12, const std::string &op, Args &a) {
  CalcHeadersSoap11Proxy p(url, SOAP_C_UTFSTRING);
  if (!soap12) use_soap11(p.soap);
  if (a.has("header.Session.token")) {
    _hdr__Session *s = soap_new__hdr__Session(p.soap);
    s->token = a.str("header.Session.token");
    p.soap_header(s, NULL);
  }
  int rc;
  if (op == "echoString") {
    _hdr__echoString in;
    in.soap_default(p.soap);
    in.s = a.str("s");
    _hdr__echoStringResponse out;
    rc = p.echoString(&in, out);
    if (rc == SOAP_OK) put("return", out.return_);
  } else if (op == "add") {
    _hdr__add in;
    in.soap_default(p.soap);
    in.a = a.num("a");
    in.b = a.num("b");
    _hdr__addResponse out;
    rc = p.add(&in, out);
    if (rc == SOAP_OK) put("result", out.result);
  } else if (op == "fail") {
    _hdr__fail in;
    in.soap_default(p.soap);
    in.code = a.str("code");
    _hdr__failResponse out;
    rc = p.fail(&in, out);
  } else {
    std::cerr << "unknown operation " << op << "\n";
    return 2;
  }
  if (rc == SOAP_OK && p.soap->header && p.soap->header->hdr__Trace) {
    put("header.Trace.session", p.soap->header->hdr__Trace->session);
    put("header.Trace.operation", p.soap->header->hdr__Trace->operation);
  }
  put_result(p.soap, rc, put_detail);
  return 0;
}

int main(int argc, char **argv) { return main_of<Service>(argc, argv, call); }
