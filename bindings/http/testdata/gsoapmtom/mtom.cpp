// gSOAP attachment peer for soapwire's HTTP interop tests, built by the Go
// test from mtom.h (soapcpp2 -j, then g++ against libgsoap++).
//
//   mtom call ENDPOINT soap11|soap12 mtom|swa IN OUT
//       sends IN's bytes (application/octet-stream) to echoData as an MTOM
//       part (xop:Include) or to echoSwA as a SOAP-with-Attachments part,
//       writes the bytes of the reply's part into OUT and prints one JSON
//       line: {"size":N (the reply's size element),"type":"…" (the part's),
//       "mtom":true (an MTOM reply) or "parts":N (SwA: the MIME parts, root
//       included)}
//   mtom serve
//       serves both operations on 127.0.0.1 (an echo of the part, in the
//       request's packaging and version), prints "listening PORT", exits
//       when stdin closes
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>

#include "soapMtomProxy.h"
#include "soapMtomService.h"
#include "Mtom.nsmap"

// soap12 is the namespace table of a SOAP 1.2 client (the generated one,
// namespaces, sends 1.1: its first envelope namespace is 1.1's).
static struct Namespace soap12[] = {
    {"SOAP-ENV", "http://www.w3.org/2003/05/soap-envelope", "http://schemas.xmlsoap.org/soap/envelope/", NULL},
    {"SOAP-ENC", "http://www.w3.org/2003/05/soap-encoding", "http://schemas.xmlsoap.org/soap/encoding/", NULL},
    {"xsi", "http://www.w3.org/2001/XMLSchema-instance", "http://www.w3.org/*/XMLSchema-instance", NULL},
    {"xsd", "http://www.w3.org/2001/XMLSchema", "http://www.w3.org/*/XMLSchema", NULL},
    {"xop", "http://www.w3.org/2004/08/xop/include", NULL, NULL},
    {"xmime5", "http://www.w3.org/2005/05/xmlmime", "http://www.w3.org/2004/11/xmlmime", NULL},
    {"m", "urn:soapwire:mtom", NULL, NULL},
    {NULL, NULL, NULL, NULL},
};

static bool readFile(const char *path, std::string &out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

static bool writeFile(const char *path, const char *p, size_t n) {
  std::ofstream f(path, std::ios::binary);
  f.write(p, n);
  return bool(f);
}

static std::string quote(const char *s) {
  std::string o = "\"";
  for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
    if (*c == '"' || *c == '\\') { o += '\\'; o += *c; }
    else if (*c < 0x20) { char b[8]; snprintf(b, sizeof b, "\\u%04x", *c); o += b; }
    else o += *c;
  }
  return o + "\"";
}

#define CHECK(call) do { if ((call) != SOAP_OK) { p.soap_stream_fault(std::cerr); return 1; } } while (0)

static int call(const char *endpoint, bool v12, bool mtom, const char *in, const char *out) {
  std::string data;
  if (!readFile(in, data)) { std::cerr << "cannot read " << in << "\n"; return 1; }
  MtomProxy p(endpoint, SOAP_IO_DEFAULT);
  if (v12) soap_set_namespaces(p.soap, soap12);
  char json[512];
  if (mtom) {
    soap_set_omode(p.soap, SOAP_ENC_MTOM);
    struct m__Data d;
    soap_default_m__Data(p.soap, &d);
    d.xop__Include.__ptr = (unsigned char *)data.data();
    d.xop__Include.__size = (int)data.size();
    d.xop__Include.type = (char *)"application/octet-stream";
    d.xmime5__contentType = (char *)"application/octet-stream";
    struct m__echoDataResponse r;
    CHECK(p.echoData(&d, &r));
    if (!r.data) { std::cerr << "echoData returned no data\n"; return 1; }
    if (!writeFile(out, (const char *)r.data->xop__Include.__ptr, r.data->xop__Include.__size)) return 1;
    snprintf(json, sizeof json, "{\"size\":%d,\"type\":%s,\"mtom\":%s}\n", r.size,
             quote(r.data->xop__Include.type).c_str(), (p.soap->mode & SOAP_ENC_MTOM) ? "true" : "false");
  } else {
    soap_set_mime(p.soap, NULL, NULL);
    if (soap_set_mime_attachment(p.soap, data.data(), data.size(), SOAP_MIME_BINARY, "application/octet-stream",
                                 "<part1@gsoap>", NULL, NULL)) {
      p.soap_stream_fault(std::cerr);
      return 1;
    }
    struct m__echoSwAResponse r;
    CHECK(p.echoSwA((char *)"cid:part1@gsoap", &r));
    int parts = 0;
    const char *ptr = NULL, *type = NULL;
    size_t size = 0;
    std::string want = r.ref ? r.ref : "";
    if (want.rfind("cid:", 0) == 0) want = want.substr(4);
    for (soap_multipart::iterator i = p.soap->mime.begin(); i != p.soap->mime.end(); ++i) {
      parts++;
      std::string id = (*i).id ? (*i).id : "";
      if (id.size() >= 2 && id[0] == '<') id = id.substr(1, id.size() - 2);
      if (id == want) { ptr = (*i).ptr; size = (*i).size; type = (*i).type; }
    }
    if (!ptr) { std::cerr << "no reply part named " << (r.ref ? r.ref : "(null)") << "\n"; return 1; }
    if (!writeFile(out, ptr, size)) return 1;
    snprintf(json, sizeof json, "{\"size\":%d,\"type\":%s,\"parts\":%d}\n", r.size, quote(type).c_str(), parts);
  }
  fputs(json, stdout);
  p.destroy();
  return 0;
}

// answerInRequestVersion makes gSOAP reply in the version of the request:
// the envelope namespace follows the request, but the media types (the
// reply's, its root part's) follow soap->version, which the namespace
// table's first entry (1.1) sets.
static void answerInRequestVersion(struct soap *soap) {
  const char *env = soap->local_namespaces ? soap->local_namespaces[0].out : NULL;
  if (!env && soap->local_namespaces) env = soap->local_namespaces[0].ns;
  soap_set_version(soap, env && strcmp(env, "http://www.w3.org/2003/05/soap-envelope") == 0 ? 2 : 1);
}

// Service echoes, in the request's version and packaging.
class Service : public MtomService {
 public:
  Service() : MtomService(SOAP_IO_DEFAULT) {}
  MtomService *copy() override { return new Service(*this); }
  int echoData(struct m__Data *in, struct m__echoDataResponse *out) override {
    if (!in) return soap_senderfault("no data", NULL);
    answerInRequestVersion(soap);
    out->data = in;
    out->size = in->xop__Include.__size;
    soap_set_omode(soap, SOAP_ENC_MTOM);
    return SOAP_OK;
  }
  int echoSwA(char *ref, struct m__echoSwAResponse *out) override {
    answerInRequestVersion(soap);
    soap_clr_omode(soap, SOAP_ENC_MTOM);  // a plain SwA package, whatever came before
    std::string want = ref ? ref : "";
    if (want.rfind("cid:", 0) == 0) want = want.substr(4);
    for (soap_multipart::iterator i = soap->mime.begin(); i != soap->mime.end(); ++i) {
      std::string id = (*i).id ? (*i).id : "";
      if (id.size() >= 2 && id[0] == '<') id = id.substr(1, id.size() - 2);
      if (id != want) continue;
      soap_set_mime(soap, NULL, NULL);
      if (soap_set_mime_attachment(soap, (*i).ptr, (*i).size, SOAP_MIME_BINARY, (*i).type ? (*i).type : "application/octet-stream",
                                   "<echo@gsoap>", NULL, NULL))
        return soap->error;
      out->ref = (char *)"cid:echo@gsoap";
      out->size = (int)(*i).size;
      return SOAP_OK;
    }
    return soap_senderfault("no attachment named by ref", NULL);
  }
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
  getsockname(svc.soap->master, (struct sockaddr *)&addr, &len);
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
    if (svc.serve() != SOAP_OK) svc.soap_stream_fault(std::cerr);
    svc.destroy();
  }
}

int main(int argc, char **argv) {
  if (argc == 7 && strcmp(argv[1], "call") == 0)
    return call(argv[2], strcmp(argv[3], "soap12") == 0, strcmp(argv[4], "mtom") == 0, argv[5], argv[6]);
  if (argc == 2 && strcmp(argv[1], "serve") == 0) return serve();
  std::cerr << "usage: mtom call ENDPOINT soap11|soap12 mtom|swa IN OUT | mtom serve\n";
  return 2;
}
