// soapcpp2 input of soapwire's gSOAP attachment peer (testdata/gsoapmtom):
// one operation carrying its bytes as an MTOM/XOP part (xop:Include), one
// carrying them as a SOAP-with-Attachments MIME part named by a cid: URL.
#import "xop.h"
#import "xmime5.h"

//gsoap m service name:      Mtom
//gsoap m service namespace: urn:soapwire:mtom
//gsoap m service style:     document
//gsoap m service encoding:  literal
//gsoap m schema namespace:  urn:soapwire:mtom
//gsoap m schema form:       qualified
//gsoap m service method-action: echoData urn:soapwire:mtom#echoData
//gsoap m service method-action: echoSwA  urn:soapwire:mtom#echoSwA

// Data is base64Binary content that travels as an xop:Include under MTOM.
struct m__Data {
  _xop__Include xop__Include;
  @char *xmime5__contentType;
};

// echoData returns the bytes it was sent, as MTOM, and their size.
int m__echoData(struct m__Data *data, struct m__echoDataResponse { struct m__Data *data; int size; } *response);

// echoSwA returns the MIME attachment "ref" names (cid:…) as an attachment
// of its reply, named by the reply's ref.
int m__echoSwA(char *ref, struct m__echoSwAResponse { char *ref; int size; } *response);
