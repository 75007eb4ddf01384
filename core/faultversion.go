package core

// WithVersion returns f re-expressed in version v: f itself when its
// Version is v already, otherwise a shallow copy with Version v. f is never
// modified, so it may be shared (a fault a handler returns to every caller,
// a fault read from a reply). A binding answering a request in the
// request's version writes:
//
//	f := core.FaultOf(err).WithVersion(m.Version())
//
// and a layer that only fills in a version the fault does not know yet:
//
//	if f.Version == 0 {
//		f = f.WithVersion(v)
//	}
//
// WithVersion of a nil *Fault is nil.
func (f *Fault) WithVersion(v Version) *Fault {
	if f == nil || f.Version == v {
		return f
	}
	c := *f
	c.Version = v
	return &c
}
