// Reading and printing the Person of the document/literal contracts
// (calc-qualified.wsdl, calc-bare.wsdl), whose generated classes differ only
// in their prefix: P is the Person class, A the Address class.

// read_person builds the Person of the arguments under k ("person.name",
// "person.address.city", "person.tags.0"...); a missing or nil note is sent
// as xsi:nil, a missing nickname is left out.
template <class P, class A>
static P *read_person(struct soap *soap, Args &a, const std::string &k) {
  P *p = new P();  // the program calls once and exits
  p->soap_default(soap);
  p->name = a.str(k + ".name");
  p->age = a.num(k + ".age");
  p->id = a.optnum(soap, k + ".id");
  if (a.has(k + ".address.street") || a.has(k + ".address.city") || a.has(k + ".address.country")) {
    A *ad = new A();
    ad->soap_default(soap);
    ad->street = a.str(k + ".address.street");
    ad->city = a.str(k + ".address.city");
    ad->country = a.opt(soap, k + ".address.country");
    p->address = ad;
  }
  p->tags = a.list(k + ".tags");
  p->nickname = a.opt(soap, k + ".nickname");
  a.nil(k + ".note");
  p->note = a.opt(soap, k + ".note");
  return p;
}

template <class P>
static void put_person(const std::string &k, const P *p) {
  if (!p) return;
  put(k + ".name", p->name);
  put(k + ".age", p->age);
  put(k + ".id", p->id);
  if (p->address) {
    put(k + ".address.street", p->address->street);
    put(k + ".address.city", p->address->city);
    put(k + ".address.country", p->address->country);
  }
  for (size_t i = 0; i < p->tags.size(); i++) put(k + ".tags." + std::to_string(i), p->tags[i]);
  put(k + ".nickname", p->nickname);
  put_nillable(k + ".note", p->note);
}
