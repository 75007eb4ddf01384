// gSOAP peer for calc-qualified.wsdl (document/literal wrapped,
// elementFormDefault="qualified", SOAP 1.1 and 1.2 ports), built by
// internal/interop: wsdl2h -t typemap.dat + soapcpp2 -j, then g++ against
// libgsoap++. See common.h for the command line and the text form.
#include "soapCalcSoap11Proxy.h"
#include "soapCalcSoap11Service.h"
#include "CalcSoap11.nsmap"
#include "common.h"
#include "person.h"

// Service implements the operations; the trailing-underscore methods are
// wsdl2h's copies for the SOAP 1.2 port.
class Service : public CalcSoap11Service {
 public:
  using CalcSoap11Service::CalcSoap11Service;
  CalcSoap11Service *copy() override { return new Service(soap_copy(soap)); }
  int echoString(_calc__echoString *in, _calc__echoStringResponse &out) override {
    answer_in_request_version(soap);
    out.return_ = in->s;
    return SOAP_OK;
  }
  int add(_calc__add *in, _calc__addResponse &out) override {
    answer_in_request_version(soap);
    out.result = in->a + in->b;
    return SOAP_OK;
  }
  int echoStruct(_calc__echoStruct *in, _calc__echoStructResponse &out) override {
    answer_in_request_version(soap);
    out.return_ = in->person;
    return SOAP_OK;
  }
  int fail(_calc__fail *in, _calc__failResponse &) override {
    answer_in_request_version(soap);
    struct SOAP_ENV__Detail *d = sender_fault(soap, "calc refused: " + in->code);
    d->calc__CalcFault = soap_new__calc__CalcFault(soap);
    d->calc__CalcFault->code = in->code;
    d->calc__CalcFault->message = "failure " + in->code + " as asked";
    return SOAP_FAULT;
  }
  int echoString_(_calc__echoString *in, _calc__echoStringResponse &out) override { return echoString(in, out); }
  int add_(_calc__add *in, _calc__addResponse &out) override { return add(in, out); }
  int echoStruct_(_calc__echoStruct *in, _calc__echoStructResponse &out) override { return echoStruct(in, out); }
  int fail_(_calc__fail *in, _calc__failResponse &out) override { return fail(in, out); }
};

static void put_detail(struct SOAP_ENV__Detail *d) {
  if (d->calc__CalcFault) {
    put("fault.detail.CalcFault.code", d->calc__CalcFault->code);
    put("fault.detail.CalcFault.message", d->calc__CalcFault->message);
  }
}

static int call(const char *url, bool soap12, const std::string &op, Args &a) {
  CalcSoap11Proxy p(url, SOAP_C_UTFSTRING);
  if (!soap12) use_soap11(p.soap);
  int rc;
  if (op == "echoString") {
    _calc__echoString in;
    in.soap_default(p.soap);
    in.s = a.str("s");
    _calc__echoStringResponse out;
    rc = p.echoString(&in, out);
    if (rc == SOAP_OK) put("return", out.return_);
  } else if (op == "add") {
    _calc__add in;
    in.soap_default(p.soap);
    in.a = a.num("a");
    in.b = a.num("b");
    _calc__addResponse out;
    rc = p.add(&in, out);
    if (rc == SOAP_OK) put("result", out.result);
  } else if (op == "echoStruct") {
    _calc__echoStruct in;
    in.soap_default(p.soap);
    in.person = read_person<calc__Person, calc__Address>(p.soap, a, "person");
    _calc__echoStructResponse out;
    rc = p.echoStruct(&in, out);
    if (rc == SOAP_OK) put_person("return", out.return_);
  } else if (op == "fail") {
    _calc__fail in;
    in.soap_default(p.soap);
    in.code = a.str("code");
    _calc__failResponse out;
    rc = p.fail(&in, out);
  } else {
    std::cerr << "unknown operation " << op << "\n";
    return 2;
  }
  put_result(p.soap, rc, put_detail);
  return 0;
}

int main(int argc, char **argv) { return main_of<Service>(argc, argv, call); }
