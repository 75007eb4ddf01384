// gSOAP peer for calc-encoded.wsdl (rpc/encoded, SOAP 1.1, SOAP-ENC
// arrays), built by internal/interop like calc-qualified.cpp. The paths of
// its values are the parts' accessors (s, a, values.0, person.tags.1);
// see common.h for the command line and the text form.
#include "soapCalcEncodedSoap11Proxy.h"
#include "soapCalcEncodedSoap11Service.h"
#include "CalcEncodedSoap11.nsmap"
#include "common.h"

class Service : public CalcEncodedSoap11Service {
 public:
  using CalcEncodedSoap11Service::CalcEncodedSoap11Service;
  CalcEncodedSoap11Service *copy() override { return new Service(soap_copy(soap)); }
  int echoString(const std::string &s, std::string &out) override {
    out = s;
    return SOAP_OK;
  }
  int add(int a, int b, int &result) override {
    result = a + b;
    return SOAP_OK;
  }
  int sumArray(ArrayOfInt *values, int &result) override {
    result = 0;
    for (int i = 0; values && i < values->__size; i++) result += values->__ptr[i];
    return SOAP_OK;
  }
  int echoStruct(enc__Person *person, struct enc__echoStructResponse &out) override {
    out.return_ = person;
    return SOAP_OK;
  }
  int fail(const std::string &code, struct enc__failResponse &) override {
    struct SOAP_ENV__Detail *d = sender_fault(soap, "calc refused: " + code);
    d->enc__CalcFault_ = soap_new__enc__CalcFault(soap);
    d->enc__CalcFault_->fault = soap_new_enc__CalcFault(soap);
    d->enc__CalcFault_->fault->code = code;
    d->enc__CalcFault_->fault->message = "failure " + code + " as asked";
    return SOAP_FAULT;
  }
};

static void put_detail(struct SOAP_ENV__Detail *d) {
  if (d->enc__CalcFault_ && d->enc__CalcFault_->fault) {
    put("fault.detail.CalcFault.fault.code", d->enc__CalcFault_->fault->code);
    put("fault.detail.CalcFault.fault.message", d->enc__CalcFault_->fault->message);
  }
}

static ArrayOfString *read_strings(struct soap *soap, Args &a, const std::string &k) {
  std::vector<std::string> v = a.list(k);
  ArrayOfString *arr = soap_new_ArrayOfString(soap);
  arr->__size = (int)v.size();
  arr->__ptr = soap_new_std__string(soap, arr->__size ? arr->__size : 1);
  for (size_t i = 0; i < v.size(); i++) arr->__ptr[i] = v[i];
  return arr;
}

static int call(const char *url, bool soap12, const std::string &op, Args &a) {
  if (soap12) {
    std::cerr << "calc-encoded has no SOAP 1.2 port\n";
    return 2;
  }
  CalcEncodedSoap11Proxy p(url, SOAP_C_UTFSTRING);
  int rc;
  if (op == "echoString") {
    std::string out;
    rc = p.echoString(a.str("s"), out);
    if (rc == SOAP_OK) put("return", out);
  } else if (op == "add") {
    int result = 0;
    rc = p.add(a.num("a"), a.num("b"), result);
    if (rc == SOAP_OK) put("result", result);
  } else if (op == "sumArray") {
    std::vector<std::string> v = a.list("values");
    ArrayOfInt arr;
    arr.soap_default(p.soap);
    arr.__size = (int)v.size();
    arr.__ptr = (int *)soap_malloc(p.soap, sizeof(int) * (v.size() + 1));
    for (size_t i = 0; i < v.size(); i++) arr.__ptr[i] = atoi(v[i].c_str());
    int result = 0;
    rc = p.sumArray(&arr, result);
    if (rc == SOAP_OK) put("result", result);
  } else if (op == "echoStruct") {
    enc__Person *in = soap_new_enc__Person(p.soap);
    in->name = a.str("person.name");
    in->age = a.num("person.age");
    if (a.has("person.address.street") || a.has("person.address.city")) {
      in->address = soap_new_enc__Address(p.soap);
      in->address->street = a.str("person.address.street");
      in->address->city = a.str("person.address.city");
    }
    in->tags = read_strings(p.soap, a, "person.tags");
    struct enc__echoStructResponse out;
    rc = p.echoStruct(in, out);
    if (rc == SOAP_OK && out.return_) {
      enc__Person *r = out.return_;
      put("return.name", r->name);
      put("return.age", r->age);
      if (r->address) {
        put("return.address.street", r->address->street);
        put("return.address.city", r->address->city);
      }
      for (int i = 0; r->tags && i < r->tags->__size; i++) put("return.tags." + std::to_string(i), r->tags->__ptr[i]);
    }
  } else if (op == "fail") {
    struct enc__failResponse out;
    rc = p.fail(a.str("code"), out);
  } else {
    std::cerr << "unknown operation " << op << "\n";
    return 2;
  }
  put_result(p.soap, rc, put_detail);
  return 0;
}

int main(int argc, char **argv) { return main_of<Service>(argc, argv, call); }
