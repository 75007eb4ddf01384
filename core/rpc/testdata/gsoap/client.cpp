// gSOAP client for core/rpc's interop test (TestGSOAP). wsdl2h + soapcpp2
// -j -C generate the proxy from the example service's WSDL; wsdl2h gives
// the operations of the SOAP 1.1 binding their names (echoString) and those
// of the SOAP 1.2 binding a trailing underscore (echoString_). The C++ it
// generates differs by style: compile with -DENCODED (rpc/encoded),
// -DLITERAL (rpc/literal) or -DDOCUMENT (document/literal wrapped).
//
// usage: client ENDPOINT_URL soap11|soap12
//
// It calls every operation through the chosen binding, with the envelope
// envelope version to match, and prints one JSON object.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>
#include "soapEchoServiceSoap11Proxy.h"
#include "EchoServiceSoap11.nsmap"

// The generated namespace table puts SOAP 1.2 first (the WSDL has a SOAP
// 1.2 binding, so wsdl2h imports soap12.h) and gSOAP writes the first URI
// of each entry: this table, 1.1 first, makes the envelope SOAP 1.1.
static struct Namespace namespaces11[] = {
  {"SOAP-ENV", "http://schemas.xmlsoap.org/soap/envelope/", "http://www.w3.org/*/soap-envelope", NULL},
  {"SOAP-ENC", "http://schemas.xmlsoap.org/soap/encoding/", "http://www.w3.org/*/soap-encoding", NULL},
  {"xsi", "http://www.w3.org/2001/XMLSchema-instance", "http://www.w3.org/*/XMLSchema-instance", NULL},
  {"xsd", "http://www.w3.org/2001/XMLSchema", "http://www.w3.org/*/XMLSchema", NULL},
  {"ns1", "urn:soapwire:echo", NULL, NULL},
  {NULL, NULL, NULL, NULL}};

struct Result {
  std::string s, name;
  int sum = 0, count = 0, cret = 0, cvalue = 0, cdoubled = 0, failed = SOAP_OK;
  double score = 0;
  std::vector<std::string> tags;
};

static std::string quote(const std::string &s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') { o += '\\'; o += c; }
    else if (c < 0x20) { char b[8]; snprintf(b, sizeof b, "\\u%04x", c); o += b; }
    else o += c;
  }
  return o + "\"";
}

#define CHECK(call) do { if ((call) != SOAP_OK) { p.soap_stream_fault(std::cerr); return 1; } } while (0)

#define OP(x) x
#define RESP(x) x
#define FN run11
#include "calls.inc"
#undef OP
#undef RESP
#undef FN
#define OP(x) x##_
#define RESP(x) x##_
#define FN run12
#include "calls.inc"

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  bool v12 = strcmp(argv[2], "soap12") == 0;
  EchoServiceSoap11Proxy p(argv[1]);
  soap_set_mode(p.soap, SOAP_C_UTFSTRING);
  if (!v12) soap_set_namespaces(p.soap, namespaces11);
  Result r;
  if ((v12 ? run12(p, r) : run11(p, r)) != 0) return 1;

  std::string out = "{\"echoString\":" + quote(r.s) + ",\"add\":" + std::to_string(r.sum);
  out += ",\"echoStruct\":{\"name\":" + quote(r.name) + ",\"count\":" + std::to_string(r.count) +
         ",\"score\":" + std::to_string(r.score) + ",\"tags\":[";
  for (size_t i = 0; i < r.tags.size(); i++) {
    if (i) out += ",";
    out += quote(r.tags[i]);
  }
  out += "]}";
  out += ",\"counter\":{\"return\":" + std::to_string(r.cret) + ",\"value\":" + std::to_string(r.cvalue) +
         ",\"doubled\":" + std::to_string(r.cdoubled) + "}";
  if (r.failed == SOAP_OK) {
    out += ",\"fail\":{\"raised\":false}";
  } else {
    const char *code = *soap_faultcode(p.soap);
    const char *sub = soap_fault_subcode(p.soap);
    const char *str = *soap_faultstring(p.soap);
    const char **det = soap_faultdetail(p.soap);
    out += ",\"fail\":{\"raised\":true,\"code\":" + quote(code ? code : "") + ",\"subcodes\":[" +
           (sub ? quote(sub) : "") + "],\"message\":" + quote(str ? str : "") +
           ",\"detail\":" + quote(det && *det ? *det : "") + "}";
  }
  out += "}\n";
  fputs(out.c_str(), stdout);
  p.destroy();
  return 0;
}
