// What the gSOAP peers of soapwire's interop harness (internal/interop)
// share: reading the arguments of a call, printing the values a call got in
// the harness's text form, printing a fault, choosing the SOAP version, and
// the server loop. Each contract's program (calc-*.cpp) includes this after
// its generated headers.
//
// Text form, one line per value: PATH=JSON-STRING, or PATH=nil for an
// element read as xsi:nil; an absent element prints no line. A gSOAP error
// that is not a SOAP fault prints error=JSON-STRING. Arguments come as
// PATH=VALUE, or PATH alone for xsi:nil.
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

// ---- output ---------------------------------------------------------------

static std::string json(const std::string &s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (c == '\n') {
      o += "\\n";
    } else if (c == '\r') {
      o += "\\r";
    } else if (c == '\t') {
      o += "\\t";
    } else if (c < 0x20) {
      char b[8];
      snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += c;
    }
  }
  return o + "\"";
}

static void put(const std::string &path, const std::string &v) { printf("%s=%s\n", path.c_str(), json(v).c_str()); }
static void put(const std::string &path, const char *v) {
  if (v) put(path, std::string(v));
}
static void put(const std::string &path, int v) { put(path, std::to_string(v)); }
static void put(const std::string &path, const std::string *v) {
  if (v) put(path, *v);
}
static void put(const std::string &path, const int *v) {
  if (v) put(path, *v);
}
static void put_nil(const std::string &path) { printf("%s=nil\n", path.c_str()); }
// put_nillable prints a nillable element: nil when gSOAP read it as such
// (or absent: gSOAP keeps no difference once read).
static void put_nillable(const std::string &path, const std::string *v) {
  if (v)
    put(path, *v);
  else
    put_nil(path);
}

// ---- arguments ------------------------------------------------------------

class Args {
 public:
  Args(int argc, char **argv) {
    for (int i = 0; i < argc; i++) {
      const char *eq = strchr(argv[i], '=');
      if (eq)
        vals_[std::string(argv[i], eq - argv[i])] = eq + 1;
      else
        nils_.insert(argv[i]);
    }
  }
  bool has(const std::string &k) { return use(k), vals_.count(k) || nils_.count(k); }
  bool nil(const std::string &k) { return use(k), nils_.count(k) > 0; }
  std::string str(const std::string &k) { return use(k), vals_.count(k) ? vals_[k] : std::string(); }
  // opt returns NULL for a missing or nil argument.
  std::string *opt(struct soap *soap, const std::string &k) {
    use(k);
    if (!vals_.count(k)) return NULL;
    std::string *s = soap_new_std__string(soap);
    *s = vals_[k];
    return s;
  }
  int num(const std::string &k) { return atoi(str(k).c_str()); }
  int *optnum(struct soap *soap, const std::string &k) {
    use(k);
    if (!vals_.count(k)) return NULL;
    int *n = (int *)soap_malloc(soap, sizeof(int));
    *n = atoi(vals_[k].c_str());
    return n;
  }
  // list returns k.0, k.1, ... up to the first missing index.
  std::vector<std::string> list(const std::string &k) {
    std::vector<std::string> v;
    for (int i = 0;; i++) {
      std::string key = k + "." + std::to_string(i);
      if (!vals_.count(key)) break;
      v.push_back(str(key));
    }
    return v;
  }
  // unused returns the arguments no operation read (a test's typo).
  std::vector<std::string> unused() {
    std::vector<std::string> v;
    for (auto &kv : vals_)
      if (!used_.count(kv.first)) v.push_back(kv.first);
    for (auto &k : nils_)
      if (!used_.count(k)) v.push_back(k);
    return v;
  }

 private:
  void use(const std::string &k) { used_.insert(k); }
  std::map<std::string, std::string> vals_;
  std::set<std::string> nils_, used_;
};

// ---- SOAP version, faults, errors -------------------------------------------

// use_soap11 makes a client send SOAP 1.1. wsdl2h merges a WSDL's 1.1 and
// 1.2 ports into one namespace table that lists SOAP 1.2 first, and gSOAP
// sends in the version of the table's first envelope namespace; this table
// is the generated one with the 1.1 URIs in its first two rows.
static void use_soap11(struct soap *soap) {
  int n = 0;
  while (namespaces[n].id) n++;
  struct Namespace *t = (struct Namespace *)soap_malloc(soap, (n + 1) * sizeof(struct Namespace));
  memcpy(t, namespaces, (n + 1) * sizeof(struct Namespace));
  t[0].ns = "http://schemas.xmlsoap.org/soap/envelope/";
  t[0].in = NULL;
  t[1].ns = "http://schemas.xmlsoap.org/soap/encoding/";
  t[1].in = NULL;
  soap_set_namespaces(soap, t);
}

// answer_in_request_version makes a server reply in the version of the
// request: with the merged table (1.2 first) gSOAP would answer a 1.1
// request as SOAP 1.2 (content type, fault shape) with only the envelope
// namespace following the request. The table's "out" column holds the
// namespace the request used.
static void answer_in_request_version(struct soap *soap) {
  const char *env = soap->local_namespaces ? soap->local_namespaces[0].out : NULL;
  if (!env && soap->local_namespaces) env = soap->local_namespaces[0].ns;
  soap_set_version(soap, env && strcmp(env, "http://schemas.xmlsoap.org/soap/envelope/") == 0 ? 1 : 2);
}

// detail_of returns the fault's detail for the message's version.
static struct SOAP_ENV__Detail *detail_of(struct soap *soap) {
  if (!soap->fault) return NULL;
  return soap->version == 2 ? soap->fault->SOAP_ENV__Detail : soap->fault->detail;
}

// sender_fault makes the fault a handler returns with SOAP_FAULT, and
// returns its (empty) detail for the handler to fill.
static struct SOAP_ENV__Detail *sender_fault(struct soap *soap, const std::string &reason) {
  soap_sender_fault(soap, soap_strdup(soap, reason.c_str()), NULL);
  soap_faultdetail(soap);  // makes the detail of the version
  return detail_of(soap);
}

// put_result prints the outcome of a call that returned rc: nothing more
// when it succeeded, the fault when the server answered one, the error
// otherwise. put_detail prints the fault's typed detail.
static void put_result(struct soap *soap, int rc, void (*put_detail)(struct SOAP_ENV__Detail *)) {
  if (rc == SOAP_OK) return;
  if (rc == SOAP_FAULT || rc == SOAP_CLI_FAULT || rc == SOAP_SVR_FAULT) {  // the server answered a fault
    put("fault.code", *soap_faultcode(soap));
    if (soap->version == 2) put("fault.subcode", soap_fault_subcode(soap));
    put("fault.string", *soap_faultstring(soap));
    struct SOAP_ENV__Detail *d = detail_of(soap);
    if (d) {
      put_detail(d);
      if (d->__any && *d->__any) put("fault.detail.any", d->__any);
    }
    return;
  }
  char buf[1024];
  soap_sprint_fault(soap, buf, sizeof buf);
  put("error", buf);
}

// ---- the server loop --------------------------------------------------------

// serve_loop serves on 127.0.0.1 (a port the system picks), prints
// "listening PORT" and exits when its standard input closes. Each
// connection is served on its own thread, with its own copy of the
// context (S must have gSOAP's constructor from a struct soap *).
template <class S>
static int serve_loop(S &svc, bool strict) {
  svc.soap->bind_flags = SO_REUSEADDR;
  svc.soap->recv_timeout = 30;
  svc.soap->send_timeout = 30;
  if (strict) soap_set_imode(svc.soap, SOAP_XML_STRICT);
  if (!soap_valid_socket(svc.bind("127.0.0.1", 0, 64))) {
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
      continue;
    }
    struct soap *conn = soap_copy(svc.soap);  // gSOAP's threaded server pattern
    if (!conn) continue;
    std::thread([conn] {
      {
        S c(conn);
        c.serve();  // a fault it sent is not an error of the program
        c.destroy();
      }
      soap_free(conn);
    }).detach();
  }
}

// main_of runs a contract's program:
//
//   PROG serve [strict]                     serve (strict: SOAP_XML_STRICT)
//   PROG call URL soap11|soap12 OP [ARG...] call OP, print what came back
//
// call returns 2 for an unknown operation or an argument OP did not read.
template <class S>
static int main_of(int argc, char **argv, int (*call)(const char *url, bool soap12, const std::string &op, Args &args)) {
  if (argc >= 2 && strcmp(argv[1], "serve") == 0) {
    S svc(SOAP_C_UTFSTRING);
    return serve_loop(svc, argc >= 3 && strcmp(argv[2], "strict") == 0);
  }
  if (argc >= 5 && strcmp(argv[1], "call") == 0) {
    Args args(argc - 5, argv + 5);
    int rc = call(argv[2], strcmp(argv[3], "soap12") == 0, argv[4], args);
    if (rc == 2) return 2;
    std::vector<std::string> unused = args.unused();
    if (!unused.empty()) {
      for (auto &k : unused) std::cerr << argv[4] << " does not take argument " << k << "\n";
      return 2;
    }
    return rc;
  }
  std::cerr << "usage: " << argv[0] << " serve [strict] | call URL soap11|soap12 OP [PATH=VALUE|PATH]...\n";
  return 2;
}
