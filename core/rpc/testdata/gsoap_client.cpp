// gSOAP client for core/rpc's interop test (SOAP 1.1): built from the
// example service's WSDL with wsdl2h + soapcpp2 -j -C, it calls every
// operation and prints one JSON object with the results. wsdl2h generates
// different C++ for each style, so compile with -DENCODED (rpc/encoded),
// -DLITERAL (rpc/literal) or -DDOCUMENT (document/literal wrapped).
// usage: gsoap_client ENDPOINT_URL
#include <cstdio>
#include <iostream>
#include <string>
#include "soapEchoServiceSoap11Proxy.h"
#include "EchoServiceSoap11.nsmap"

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

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  EchoServiceSoap11Proxy p(argv[1]);
  soap_set_mode(p.soap, SOAP_C_UTFSTRING);
  const char *hello = "h\xc3\xa9llo <&> w\xc3\xb6rld";
  std::string s;
  int sum = 0;
  ns1__Record rec;
  rec.soap_default(p.soap);
  rec.name = "n1";
  rec.count = 7;
  rec.score = 2.5;
  ns1__Record *got = NULL;
  int cret = 0, cvalue = 0, cdoubled = 0;
  int failed;

#if defined(DOCUMENT)
  _ns1__echoString es; es.soap_default(p.soap); es.s = hello;
  _ns1__echoStringResponse esr;
  CHECK(p.echoString(&es, esr));
  s = esr.return_;
  _ns1__add ad; ad.soap_default(p.soap); ad.a = 40; ad.b = 2;
  _ns1__addResponse adr;
  CHECK(p.add(&ad, adr));
  sum = adr.return_;
  rec.tags = {"a", "b", "c"};
  _ns1__echoStruct est; est.soap_default(p.soap); est.record = &rec;
  _ns1__echoStructResponse estr;
  CHECK(p.echoStruct(&est, estr));
  got = estr.return_;
  _ns1__counter cn; cn.soap_default(p.soap); cn.value = 4; cn.step = 1;
  _ns1__counterResponse cr;
  CHECK(p.counter(&cn, cr));
  cret = cr.return_; cvalue = cr.value; cdoubled = cr.doubled;
  _ns1__fail fl; fl.soap_default(p.soap); fl.reason = "no such account";
  _ns1__failResponse fr;
  failed = p.fail(&fl, fr);
#else
#if defined(LITERAL)
  ns1__echoStringResponse sr;
  CHECK(p.echoString(hello, sr));
  s = sr.return_;
  ns1__addResponse ar;
  CHECK(p.add(40, 2, ar));
  sum = ar.return_;
  rec.tags = {"a", "b", "c"};
#else
  CHECK(p.echoString(hello, s));
  CHECK(p.add(40, 2, sum));
  std::string tags[] = {"a", "b", "c"};
  ArrayOfString arr;
  arr.soap_default(p.soap);
  arr.__ptr = tags;
  arr.__size = 3;
  rec.tags = &arr;
#endif
  ns1__echoStructResponse er;
  CHECK(p.echoStruct(&rec, er));
  got = er.return_;
  ns1__counterResponse cr;
  CHECK(p.counter(4, 1, cr));
  cret = cr.return_; cvalue = cr.value; cdoubled = cr.doubled;
  ns1__failResponse fr;
  failed = p.fail("no such account", fr);
#endif

  if (!got) { std::cerr << "echoStruct returned nothing\n"; return 1; }
  std::string out = "{\"echoString\":" + quote(s) + ",\"add\":" + std::to_string(sum);
  out += ",\"echoStruct\":{\"name\":" + quote(got->name) + ",\"count\":" + std::to_string(got->count) +
         ",\"score\":" + std::to_string(got->score) + ",\"tags\":[";
#if defined(ENCODED)
  for (int i = 0; got->tags && i < got->tags->__size; i++) {
    if (i) out += ",";
    out += quote(got->tags->__ptr[i]);
  }
#else
  for (size_t i = 0; i < got->tags.size(); i++) {
    if (i) out += ",";
    out += quote(got->tags[i]);
  }
#endif
  out += "]}";
  out += ",\"counter\":{\"return\":" + std::to_string(cret) + ",\"value\":" + std::to_string(cvalue) +
         ",\"doubled\":" + std::to_string(cdoubled) + "}";
  if (failed == SOAP_OK) {
    out += ",\"fail\":{\"raised\":false}";
  } else {
    const char *code = *soap_faultcode(p.soap);
    const char *str = *soap_faultstring(p.soap);
    const char **det = soap_faultdetail(p.soap);
    out += ",\"fail\":{\"raised\":true,\"code\":" + quote(code ? code : "") + ",\"message\":" + quote(str ? str : "") +
           ",\"detail\":" + quote(det && *det ? *det : "") + "}";
  }
  out += "}\n";
  fputs(out.c_str(), stdout);
  p.destroy();
  return 0;
}
