package soapenc

import (
	"encoding/xml"
	"reflect"
	"strconv"
	"strings"
)

// This file holds arrays: SOAP 1.1 soapenc:Array with soapenc:arrayType
// ("xsd:int[3]", "xsd:int[2,3]", "xsd:int[][2]", soapenc:offset and
// soapenc:position), and SOAP 1.2 enc:itemType with enc:arraySize ("3",
// "* 3", "2 3").

// maxDims bounds the dimensions an array may declare.
const maxDims = 16

func (s *encState) array(v reflect.Value, ti *typeInfo) error {
	if ti.kind == kSlice {
		k := ptrKey{p: v.Pointer(), t: ti.t, n: v.Len()}
		tracked, err := s.enter(k)
		defer s.leave(k, tracked)
		if err != nil {
			return err
		}
	}
	var dimBuf [maxDims]int
	dims := append(dimBuf[:0], v.Len())
	item := ti.elem
	for item.kind == kArray && len(dims) < maxDims { // Go arrays nested in the array: more dimensions
		dims = append(dims, item.arrayLen)
		item = item.elem
	}
	if s.v12 {
		s.buf = append(s.buf, ` xsi:type="enc:Array" enc:itemType="`...)
		s.buf = s.appendItemType(s.buf, item)
		s.buf = append(s.buf, `" enc:arraySize="`...)
		for i, n := range dims {
			if i > 0 {
				s.buf = append(s.buf, ' ')
			}
			s.buf = strconv.AppendInt(s.buf, int64(n), 10)
		}
	} else {
		s.buf = append(s.buf, ` xsi:type="soapenc:Array" soapenc:arrayType="`...)
		s.buf = s.appendItemType(s.buf, item)
		s.buf = append(s.buf, '[')
		for i, n := range dims {
			if i > 0 {
				s.buf = append(s.buf, ',')
			}
			s.buf = strconv.AppendInt(s.buf, int64(n), 10)
		}
		s.buf = append(s.buf, ']')
	}
	s.buf = append(s.buf, `">`...)
	return s.items(v, ti, len(dims))
}

// items writes the items of v, row-major through its n array dimensions.
func (s *encState) items(v reflect.Value, ti *typeInfo, n int) error {
	if n == 0 {
		return s.value("<item", "</item>", "", v, ti)
	}
	for i := 0; i < v.Len(); i++ {
		if err := s.items(v.Index(i), ti.elem, n-1); err != nil {
			return withPath(err, "item["+strconv.Itoa(i+1)+"]")
		}
	}
	return nil
}

// appendItemType appends the QName of an array item type: 1.1 adds a rank
// ("[]", "[,]") for items that are arrays themselves.
func (s *encState) appendItemType(b []byte, ti *typeInfo) []byte {
	for ti.kind == kPtr {
		ti = ti.elem
	}
	switch {
	case ti.kind.simple():
		b = append(b, "xsd:"...)
		return append(b, xsdNames[ti.kind]...)
	case ti.kind == kStruct && s.tns && ti.typeName != "":
		b = append(b, "tns:"...)
		return append(b, ti.typeName...)
	case ti.kind == kSlice || ti.kind == kArray:
		if s.v12 {
			return append(b, "enc:Array"...)
		}
		d, inner := 1, ti.elem
		for inner.kind == kArray {
			d, inner = d+1, inner.elem
		}
		b = s.appendItemType(b, inner)
		b = append(b, '[')
		b = append(b, strings.Repeat(",", d-1)...)
		return append(b, ']')
	}
	return append(b, "xsd:anyType"...)
}

// isArray reports whether el is marked as a SOAP array.
func (e *Element) isArray() bool { return e.isArr }

// noExtra stands for absent attributes; it is never written.
var noExtra extra

type arrayInfo struct {
	item      xml.Name // declared item type, if any
	itemArray bool     // 1.1 rank parts: the items are arrays
	dims      []int    // declared dimensions; -1 is unspecified
	offset    int      // 1.1 soapenc:offset, row-major
}

func arrayError(format string, args ...any) *Error { return errorf(SubcodeArraySize, format, args...) }

// parseSize reads one declared dimension.
func (d *decodeState) parseSize(s string) (int, error) {
	s = trimSpace(s)
	if s == "" || s == "*" {
		return -1, nil
	}
	if digits(s) != len(s) {
		return 0, arrayError("array size %s is not a number", quote(s))
	}
	max := limit(d.t.d.MaxArraySize, DefaultMaxArraySize)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > int64(max) {
		return 0, arrayError("array size %s is over the limit of %d", quote(s), max)
	}
	return int(n), nil
}

func (d *decodeState) arrayInfo(el *Element) (arrayInfo, error) {
	var info arrayInfo
	x := el.x
	if x == nil {
		x = &noExtra
	}
	var sizes []string
	switch {
	case x.arrayType != "":
		at := trimSpace(x.arrayType)
		i := strings.IndexByte(at, '[')
		if i <= 0 {
			return info, badValue(at, "a valid soapenc:arrayType")
		}
		n, err := el.resolve(at[:i])
		if err != nil {
			return info, err
		}
		info.item = n
		var groups []string
		for rest := at[i:]; rest != ""; rest = trimSpace(rest) {
			j := strings.IndexByte(rest, ']')
			if rest[0] != '[' || j < 0 || len(groups) > maxDims {
				return info, badValue(at, "a valid soapenc:arrayType")
			}
			groups, rest = append(groups, rest[1:j]), rest[j+1:]
		}
		for _, r := range groups[:len(groups)-1] {
			if strings.Trim(r, ", ") != "" {
				return info, badValue(at, "a valid soapenc:arrayType")
			}
		}
		info.itemArray = len(groups) > 1
		sizes = strings.Split(groups[len(groups)-1], ",")
	case x.itemType != "" || x.arraySize != "":
		if x.itemType != "" {
			n, err := el.resolve(x.itemType)
			if err != nil {
				return info, err
			}
			info.item = n
		}
		sizes = strings.Fields(x.arraySize)
		for i, s := range sizes {
			if s == "*" && i > 0 {
				return info, arrayError("enc:arraySize %s: only the first size may be \"*\"", quote(x.arraySize))
			}
		}
	}
	if len(sizes) > maxDims {
		return info, arrayError("array declares more than %d dimensions", maxDims)
	}
	total := 1
	for _, s := range sizes {
		n, err := d.parseSize(s)
		if err != nil {
			return info, err
		}
		info.dims = append(info.dims, n)
		if n >= 0 && total >= 0 {
			if total > limit(d.t.d.MaxArraySize, DefaultMaxArraySize)/max(n, 1) {
				return info, arrayError("array declares more than %d items", limit(d.t.d.MaxArraySize, DefaultMaxArraySize))
			}
			total *= n
		}
	}
	if x.offset != "" {
		o, err := d.position(x.offset, info.dims)
		if err != nil {
			return info, err
		}
		info.offset = o
	}
	return info, nil
}

// position reads "[i]" or "[i,j]" as a row-major index into dims.
func (d *decodeState) position(s string, dims []int) (int, error) {
	s = trimSpace(s)
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return 0, arrayError("position %s is not of the form [n]", quote(s))
	}
	parts := strings.Split(s[1:len(s)-1], ",")
	if len(parts) != max(len(dims), 1) {
		return 0, arrayError("position %s does not match the array's %d dimensions", quote(s), len(dims))
	}
	idx := 0
	for i, p := range parts {
		n, err := d.parseSize(p)
		if err != nil || n < 0 {
			return 0, arrayError("position %s is not valid", quote(s))
		}
		if i > 0 {
			if dims[i] < 0 || n >= dims[i] {
				return 0, arrayError("position %s is outside the array", quote(s))
			}
			idx *= dims[i]
		}
		idx += n
	}
	return idx, nil
}

// declared returns the item count dims declare, or -1.
func declared(dims []int) int {
	if len(dims) == 0 {
		return -1
	}
	t := 1
	for _, n := range dims {
		if n < 0 {
			return -1
		}
		t *= n
	}
	return t
}

// arrayItems lists the items of a sparse or partial (offset) array in
// row-major order, nil standing for an item not sent; its length grows with
// the items present, never with a declared size alone. For any other array
// it returns nil: the items are the children, in order.
func (d *decodeState) arrayItems(el *Element, info arrayInfo) ([]*Element, error) {
	total := declared(info.dims)
	if total >= 0 && int(el.nkids) > total {
		return nil, arrayError("array declares %d items but has %d", total, el.nkids)
	}
	sparse := info.offset > 0
	for c := el.first; c != nil && !sparse; c = c.next {
		sparse = c.x != nil && c.x.position != ""
	}
	if !sparse {
		return nil, nil // the children, in order: see fill
	}
	bound := limit(d.t.d.MaxNodes, DefaultMaxNodes)
	if total >= 0 {
		bound = min(bound, total)
	}
	var items []*Element
	next := info.offset
	for c := el.first; c != nil; c = c.next {
		i := next
		if c.x != nil && c.x.position != "" {
			p, err := d.position(c.x.position, info.dims)
			if err != nil {
				return nil, withElemPath(err, c)
			}
			i = p
		}
		if i >= bound {
			return nil, withElemPath(arrayError("item index %d is outside the array (%d items)", i, bound), c)
		}
		for len(items) <= i {
			items = append(items, nil)
		}
		if items[i] != nil {
			return nil, withElemPath(arrayError("two items at index %d", i), c)
		}
		items[i] = c
		next = i + 1
	}
	return items, nil
}

// array decodes el into a slice or Go array.
func (d *decodeState) array(el *Element, dst reflect.Value, ti *typeInfo) error {
	if !el.isArray() {
		switch {
		case el.first == nil && trimSpace(el.text) == "" && el.tkind == kInvalid:
			return d.fill(dst, ti, nil, nil) // <list/>: no items
		case el.first == nil || matchesStruct(el, ti.elem):
			return d.fill(dst, ti, []*Element{el}, nil) // one item, sent bare
		}
		items := make([]*Element, 0, el.nkids) // a wrapper of items, without array markers
		for c := el.first; c != nil; c = c.next {
			items = append(items, c)
		}
		return d.fill(dst, ti, items, nil)
	}
	info, err := d.arrayInfo(el)
	if err != nil {
		return err
	}
	items, err := d.arrayItems(el, info)
	if err != nil {
		return err
	}
	if items == nil {
		return d.fillChildren(dst, ti, el, info.dims)
	}
	return d.fill(dst, ti, items, info.dims)
}

// Absent items. A sparse array (soapenc:position) or a partially
// transmitted one (soapenc:offset, or fewer items than it declares) has
// positions no item was sent for. They are absent, not empty: an item type
// that can be nil (a pointer, an interface, a *Element) holds nil there;
// any other is an error naming the position, never a zero value the sender
// did not send. A slice ends with the last item sent, so only positions
// before it, or a Go array longer than the items sent, can be absent.

// holdsAbsence reports whether items of type ti can stand for an absent
// item (nil).
func holdsAbsence(ti *typeInfo) bool { return ti.kind == kPtr || ti.kind == kIface }

func absentItem(i int, ti *typeInfo) *Error {
	return errorf(SubcodeBadValue, "the array's item %d (from 0, row-major) was not sent (a sparse or partially transmitted array) and a %s cannot be absent: decode into pointers or any", i, ti.t)
}

// trailingAbsent refuses a Go array of type ti that n items fill in part
// when the array declares more (units, -1 if it does not say): its other
// places would hold values never sent.
func trailingAbsent(ti *typeInfo, n, units int) error {
	if units > n && ti.arrayLen > n && !holdsAbsence(ti.elem) {
		return absentItem(n, ti.elem)
	}
	return nil
}

// fillChildren is fill with the children of el as the items.
func (d *decodeState) fillChildren(dst reflect.Value, ti *typeInfo, el *Element, dims []int) error {
	if len(dims) > 1 && (ti.elem.kind == kSlice || ti.elem.kind == kArray) {
		items := make([]*Element, 0, el.nkids)
		for c := el.first; c != nil; c = c.next {
			items = append(items, c)
		}
		return d.fill(dst, ti, items, dims)
	}
	var s reflect.Value
	if ti.kind == kSlice {
		s = reflect.MakeSlice(ti.t, int(el.nkids), int(el.nkids))
	} else {
		if int(el.nkids) > ti.arrayLen {
			return arrayError("%d items do not fit in %s", el.nkids, ti.t)
		}
		if err := trailingAbsent(ti, int(el.nkids), declared(dims)); err != nil {
			return err
		}
		dst.SetZero()
		s = dst
	}
	i := 0
	for c := el.first; c != nil; c, i = c.next, i+1 {
		if err := d.element(c, s.Index(i), ti.elem); err != nil {
			return err
		}
	}
	if ti.kind == kSlice {
		dst.Set(s)
	}
	return nil
}

// fill stores items in dst (a slice or Go array of type ti). With more than
// one dimension and a target whose items are slices or arrays, the items are
// cut into rows of the inner dimensions; otherwise they are flattened.
func (d *decodeState) fill(dst reflect.Value, ti *typeInfo, items []*Element, dims []int) error {
	chunk := len(dims) > 1 && (ti.elem.kind == kSlice || ti.elem.kind == kArray)
	rowSize := 1
	if chunk {
		for _, n := range dims[1:] {
			if n < 0 {
				return arrayError("only the first array size may be unspecified")
			}
			rowSize *= n
		}
	}
	n := len(items)
	if chunk {
		if rowSize == 0 {
			n = 0
		} else {
			n = (len(items) + rowSize - 1) / rowSize
		}
	}
	var s reflect.Value
	if ti.kind == kSlice {
		s = reflect.MakeSlice(ti.t, n, n)
	} else {
		if n > ti.arrayLen {
			return arrayError("%d items do not fit in %s", n, ti.t)
		}
		units := declared(dims) // the items, or the rows when cut into rows
		if chunk {
			units = dims[0]
		}
		if err := trailingAbsent(ti, n, units); err != nil {
			return err
		}
		dst.SetZero()
		s = dst
	}
	for i := 0; i < n; i++ {
		switch {
		case chunk:
			if err := d.fill(s.Index(i), ti.elem, items[i*rowSize:min(len(items), (i+1)*rowSize)], dims[1:]); err != nil {
				return err
			}
		case items[i] != nil:
			if err := d.element(items[i], s.Index(i), ti.elem); err != nil {
				return err
			}
		case !holdsAbsence(ti.elem):
			return absentItem(i, ti.elem)
		}
	}
	if ti.kind == kSlice {
		dst.Set(s)
	}
	return nil
}
