// gSOAP peer for soapwire's HTTP interop tests, built by the Go test from
// the interop service's WSDL (wsdl2h + soapcpp2 -j, then g++ against
// libgsoap++). wsdl2h merges the WSDL's SOAP 1.1 and 1.2 ports into one
// proxy and one service class; the version is chosen per call.
//
//   interop call ENDPOINT soap11|soap12   calls every operation, prints JSON
//   interop serve                          serves on 127.0.0.1, prints
//                                          "listening PORT", exits when stdin
//                                          closes
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

#include "soapInteropServiceSoap11Proxy.h"
#include "soapInteropServiceSoap11Service.h"
#include "InteropServiceSoap11.nsmap"

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

// soap11 is the namespace table of a SOAP 1.1 client. The proxy's own table
// (wsdl2h merges the WSDL's 1.1 and 1.2 ports) lists SOAP 1.2 first, and
// gSOAP sends in the version of the table's first envelope namespace.
static struct Namespace soap11[] = {
    {"SOAP-ENV", "http://schemas.xmlsoap.org/soap/envelope/", NULL, NULL},
    {"SOAP-ENC", "http://schemas.xmlsoap.org/soap/encoding/", NULL, NULL},
    {"xsi", "http://www.w3.org/2001/XMLSchema-instance", "http://www.w3.org/*/XMLSchema-instance", NULL},
    {"xsd", "http://www.w3.org/2001/XMLSchema", "http://www.w3.org/*/XMLSchema", NULL},
    {"ns1", "urn:soapwire:interop", NULL, NULL},
    {NULL, NULL, NULL, NULL},
};

static int call(const char *endpoint, bool soap12) {
  InteropServiceSoap11Proxy p(endpoint, SOAP_C_UTFSTRING);
  if (!soap12) soap_set_namespaces(p.soap, soap11);
  const char *hello = "h\xc3\xa9llo & <world>";

  _ns1__echoString es; es.soap_default(p.soap); es.message = hello;
  _ns1__echoStringResponse esr;
  CHECK(p.echoString(&es, esr));

  _ns1__add ad; ad.soap_default(p.soap); ad.a = 40; ad.b = 2;
  _ns1__addResponse adr;
  CHECK(p.add(&ad, adr));

  ns1__Item item; item.soap_default(p.soap);
  item.name = "widget"; item.count = 3; item.score = 2.5; item.tags = {"a", "b", "c"};
  _ns1__echoStruct est; est.soap_default(p.soap); est.value = &item;
  _ns1__echoStructResponse estr;
  CHECK(p.echoStruct(&est, estr));
  ns1__Item *got = estr.return_;
  if (!got) { std::cerr << "echoStruct returned nothing\n"; return 1; }

  _ns1__fail fl; fl.soap_default(p.soap); fl.reason = "boom";
  _ns1__failResponse flr;
  int failed = p.fail(&fl, flr);

  std::string out = "{\"echoString\":" + quote(esr.return_) + ",\"add\":" + std::to_string(adr.return_);
  out += ",\"echoStruct\":{\"name\":" + quote(got->name) + ",\"count\":" + std::to_string(got->count) +
         ",\"score\":" + std::to_string(got->score) + ",\"tags\":[";
  for (size_t i = 0; i < got->tags.size(); i++) {
    if (i) out += ",";
    out += quote(got->tags[i]);
  }
  out += "]}";
  if (failed == SOAP_OK) {
    out += ",\"fail\":{\"raised\":false}";
  } else {
    const char *code = *soap_faultcode(p.soap);
    const char *sub = soap_fault_subcode(p.soap);
    const char *str = *soap_faultstring(p.soap);
    const char *det = soap_fault_detail(p.soap);
    out += ",\"fail\":{\"raised\":true,\"code\":" + quote(code ? code : "") + ",\"message\":" + quote(str ? str : "") +
           ",\"detail\":" + quote(det ? det : "") + ",\"subcodes\":[" + (sub ? quote(sub) : "") + "]}";
  }
  out += "}\n";
  fputs(out.c_str(), stdout);
  p.destroy();
  return 0;
}

// answerInRequestVersion makes gSOAP reply in the version of the request.
// wsdl2h merges the WSDL's 1.1 and 1.2 ports into one namespace table with
// 1.2 first, and gSOAP then answers every request as SOAP 1.2 (content
// type, fault shape) with only the envelope namespace following the
// request; the table's "out" column holds the namespace the request used.
static void answerInRequestVersion(struct soap *soap) {
  const char *env = soap->local_namespaces ? soap->local_namespaces[0].out : NULL;
  if (!env && soap->local_namespaces) env = soap->local_namespaces[0].ns;
  soap_set_version(soap, env && strcmp(env, "http://schemas.xmlsoap.org/soap/envelope/") == 0 ? 1 : 2);
}

// Service answers the interop operations; the trailing-underscore methods
// are wsdl2h's copies for the SOAP 1.2 port.
class Service : public InteropServiceSoap11Service {
 public:
  Service() : InteropServiceSoap11Service(SOAP_C_UTFSTRING) {}
  InteropServiceSoap11Service *copy() override { return new Service(*this); }
  int echoString(_ns1__echoString *in, _ns1__echoStringResponse &out) override {
    answerInRequestVersion(soap);
    out.return_ = in->message;
    return SOAP_OK;
  }
  int add(_ns1__add *in, _ns1__addResponse &out) override {
    answerInRequestVersion(soap);
    out.return_ = in->a + in->b;
    return SOAP_OK;
  }
  int echoStruct(_ns1__echoStruct *in, _ns1__echoStructResponse &out) override {
    answerInRequestVersion(soap);
    out.return_ = in->value;
    return SOAP_OK;
  }
  int fail(_ns1__fail *in, _ns1__failResponse &) override {
    answerInRequestVersion(soap);
    std::string detail = "<d:why xmlns:d=\"urn:soapwire:interop:detail\"><d:reason>" + in->reason +
                         "</d:reason><d:code>42</d:code></d:why>";
    return soap_senderfault(("failed: " + in->reason).c_str(), soap_strdup(soap, detail.c_str()));
  }
  int echoString_(_ns1__echoString *in, _ns1__echoStringResponse &out) override { return echoString(in, out); }
  int add_(_ns1__add *in, _ns1__addResponse &out) override { return add(in, out); }
  int echoStruct_(_ns1__echoStruct *in, _ns1__echoStructResponse &out) override { return echoStruct(in, out); }
  int fail_(_ns1__fail *in, _ns1__failResponse &out) override { return fail(in, out); }
};

static int serve() {
  Service svc;
  svc.soap->bind_flags = SO_REUSEADDR;
  if (!soap_valid_socket(svc.bind("127.0.0.1", 0, 16))) {
    svc.soap_stream_fault(std::cerr);
    return 1;
  }
  struct sockaddr_in addr;
  socklen_t len = sizeof addr;
  if (getsockname(svc.soap->master, (struct sockaddr *)&addr, &len) != 0) {
    perror("getsockname");
    return 1;
  }
  printf("listening %d\n", ntohs(addr.sin_port));
  fflush(stdout);
  std::thread([] {
    char buf[64];
    while (read(0, buf, sizeof buf) > 0) {
    }
    _exit(0);
  }).detach();
  for (;;) {
    if (!soap_valid_socket(svc.accept())) {
      svc.soap_stream_fault(std::cerr);
      return 1;
    }
    svc.serve();  // a fault it sent is not an error of the program
    svc.destroy();
  }
}

int main(int argc, char **argv) {
  if (argc >= 4 && strcmp(argv[1], "call") == 0) return call(argv[2], strcmp(argv[3], "soap12") == 0);
  if (argc >= 2 && strcmp(argv[1], "serve") == 0) return serve();
  std::cerr << "usage: interop call ENDPOINT soap11|soap12 | interop serve\n";
  return 2;
}
