package soapenc

import "reflect"

// This file holds multi-reference values: on the encoding side the scan
// that finds pointers reached more than once, on the decoding side the
// memo that decodes a referenced element once per Go type.

// scanRoots counts, for MultiRefs, how often each pointer is reached from
// the roots. Pointers counted more than once are written once and referred
// to elsewhere (see encState.ref). Slices and maps already visited are not
// walked again, so cyclic slices and maps cannot make the scan loop.
func (s *encState) scanRoots(roots ...reflect.Value) {
	s.counts = map[ptrKey]int{}
	s.shared = map[ptrKey]*sharedRef{}
	seen := map[ptrKey]bool{}
	for _, v := range roots {
		if v.IsValid() {
			s.scan(v, infoOf(v.Type()), seen)
		}
	}
}

func (s *encState) scan(v reflect.Value, ti *typeInfo, seen map[ptrKey]bool) {
	switch ti.kind {
	case kPtr:
		if v.IsNil() {
			return
		}
		k := ptrKey{p: v.Pointer(), t: ti.t}
		if s.counts[k]++; s.counts[k] == 1 {
			s.scan(v.Elem(), ti.elem, seen)
		}
	case kIface:
		if !v.IsNil() {
			e := v.Elem()
			s.scan(e, infoOf(e.Type()), seen)
		}
	case kStruct:
		for i := range ti.fields {
			f := &ti.fields[i]
			if !f.ti.kind.simple() {
				s.scan(v.FieldByIndex(f.index), f.ti, seen)
			}
		}
	case kSlice, kArray:
		if ti.elem.kind.simple() {
			return
		}
		if ti.kind == kSlice {
			k := ptrKey{p: v.Pointer(), t: ti.t, n: v.Len()}
			if v.IsNil() || seen[k] {
				return
			}
			seen[k] = true
		}
		for i := 0; i < v.Len(); i++ {
			s.scan(v.Index(i), ti.elem, seen)
		}
	case kMap:
		k := ptrKey{p: v.Pointer(), t: ti.t}
		if v.IsNil() || seen[k] || ti.elem.kind.simple() {
			return
		}
		seen[k] = true
		for it := v.MapRange(); it.Next(); {
			s.scan(it.Value(), ti.elem, seen)
		}
	}
}

// sharedFor returns the sharedRef of pointer v if MultiRefs found it more
// than once, else nil.
func (s *encState) sharedFor(k ptrKey, v reflect.Value, ti *typeInfo) *sharedRef {
	if s.counts == nil || s.counts[k] < 2 {
		return nil
	}
	r := s.shared[k]
	if r == nil {
		r = &sharedRef{v: v, ti: ti}
		s.shared[k] = r
	}
	return r
}

type memoKey struct {
	el *Element
	t  reflect.Type
}

type memoEntry struct {
	v    reflect.Value
	done bool // false while the value is being decoded
}

// shared decodes the referenced (or id-carrying) element t into dst, once
// per Go type. Pointers and maps are made before their content is decoded,
// so references back to them (cycles) find them; other types referred to
// while they are being decoded are a cycle error.
func (d *decodeState) shared(t *Element, dst reflect.Value, ti *typeInfo) error {
	if d.t.memo == nil {
		d.t.memo = map[memoKey]*memoEntry{}
	}
	key := memoKey{t, ti.t}
	if m := d.t.memo[key]; m != nil {
		if !m.done {
			return errorf(SubcodeCycle, "cyclic reference to %s cannot be decoded into %s (a pointer can hold it)", t.path(), ti.t)
		}
		dst.Set(m.v)
		return nil
	}
	if !t.isNil {
		var v reflect.Value
		switch {
		case ti.kind == kPtr:
			v = reflect.New(ti.t.Elem())
			d.t.memo[key] = &memoEntry{v: v, done: true}
			if err := d.direct(t, v.Elem(), ti.elem); err != nil {
				return err
			}
		case ti.kind == kMap:
			v = reflect.MakeMapWithSize(ti.t, int(t.nkids))
			d.t.memo[key] = &memoEntry{v: v, done: true}
			if err := d.fillMap(t, v, ti); err != nil {
				return err
			}
		case ti.t == typeAny && d.naturalMap(t):
			m := reflect.MakeMapWithSize(typeMapAny, int(t.nkids))
			v = reflect.New(typeAny).Elem()
			v.Set(m)
			d.t.memo[key] = &memoEntry{v: v, done: true}
			if err := d.fillMap(t, m, infoOf(typeMapAny)); err != nil {
				return err
			}
		}
		if v.IsValid() {
			dst.Set(v)
			return nil
		}
	}
	entry := &memoEntry{}
	d.t.memo[key] = entry
	v := reflect.New(ti.t).Elem()
	if err := d.direct(t, v, ti); err != nil {
		return err
	}
	entry.v, entry.done = v, true
	dst.Set(v)
	return nil
}
