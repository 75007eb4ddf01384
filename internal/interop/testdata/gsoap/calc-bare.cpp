// gSOAP peer for calc-bare.wsdl (document/literal bare, qualified, SOAP 1.1
// and 1.2 ports), built by internal/interop like calc-qualified.cpp. The
// paths of its values start with the part's element (Traveller.name,
// Returned.name, Sum); see common.h for the command line and text form.
#include "soapCalcBareSoap11Proxy.h"
#include "soapCalcBareSoap11Service.h"
#include "CalcBareSoap11.nsmap"
#include "common.h"
#include "person.h"

class Service : public CalcBareSoap11Service {
 public:
  using CalcBareSoap11Service::CalcBareSoap11Service;
  CalcBareSoap11Service *copy() override { return new Service(soap_copy(soap)); }
  int echoString(const std::string &in, std::string &out) override {
    answer_in_request_version(soap);
    out = in;
    return SOAP_OK;
  }
  int add(bare__Operands *in, int &sum) override {
    answer_in_request_version(soap);
    sum = in ? in->a + in->b : 0;
    return SOAP_OK;
  }
  int echoStruct(bare__Person *in, bare__Person &out) override {
    answer_in_request_version(soap);
    if (in) out = *in;
    return SOAP_OK;
  }
  int fail(const std::string &code, std::string &) override {
    answer_in_request_version(soap);
    struct SOAP_ENV__Detail *d = sender_fault(soap, "calc refused: " + code);
    d->bare__CalcFault = soap_new__bare__CalcFault(soap);
    d->bare__CalcFault->code = code;
    d->bare__CalcFault->message = "failure " + code + " as asked";
    return SOAP_FAULT;
  }
  int echoString_(const std::string &in, std::string &out) override { return echoString(in, out); }
  int add_(bare__Operands *in, int &sum) override { return add(in, sum); }
  int echoStruct_(bare__Person *in, bare__Person &out) override { return echoStruct(in, out); }
  int fail_(const std::string &code, std::string &ack) override { return fail(code, ack); }
};

static void put_detail(struct SOAP_ENV__Detail *d) {
  if (d->bare__CalcFault) {
    put("fault.detail.CalcFault.code", d->bare__CalcFault->code);
    put("fault.detail.CalcFault.message", d->bare__CalcFault->message);
  }
}

static int call(const char *url, bool soap12, const std::string &op, Args &a) {
  CalcBareSoap11Proxy p(url, SOAP_C_UTFSTRING);
  if (!soap12) use_soap11(p.soap);
  int rc;
  if (op == "echoString") {
    std::string out;
    rc = p.echoString(a.str("EchoText"), out);
    if (rc == SOAP_OK) put("EchoedText", out);
  } else if (op == "add") {
    bare__Operands in;
    in.soap_default(p.soap);
    in.a = a.num("Operands.a");
    in.b = a.num("Operands.b");
    int sum = 0;
    rc = p.add(&in, sum);
    if (rc == SOAP_OK) put("Sum", sum);
  } else if (op == "echoStruct") {
    bare__Person *in = read_person<bare__Person, bare__Address>(p.soap, a, "Traveller");
    bare__Person out;
    out.soap_default(p.soap);
    rc = p.echoStruct(in, out);
    if (rc == SOAP_OK) put_person("Returned", &out);
  } else if (op == "fail") {
    std::string ack;
    rc = p.fail(a.str("FailCode"), ack);
    if (rc == SOAP_OK) put("FailAck", ack);
  } else {
    std::cerr << "unknown operation " << op << "\n";
    return 2;
  }
  put_result(p.soap, rc, put_detail);
  return 0;
}

int main(int argc, char **argv) { return main_of<Service>(argc, argv, call); }
