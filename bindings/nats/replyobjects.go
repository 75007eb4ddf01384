package nats

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"mime"
	"mime/multipart"

	"github.com/nats-io/nats.go"

	"github.com/soapwire/soapwire/core"
)

// A Transport's reply has no settle that would tell the binding when its
// caller is done with the parts, so the Transport does not leave the parts
// in the bucket: it reads the reply again with each object's bytes in place
// of the part that names it, through core.ReadPackage, which holds every
// part before it returns (in memory up to Limits.SpoolThreshold, in a spool
// file beyond it, removed by Message.Close). The reply returned is then
// local, and the objects are deleted before RoundTrip returns.

// localReply reads the reply msg again, the objects objs (fetched from
// msg's external parts, in package order) in place of their parts, under
// lim. The objects are read within ctx. The package read keeps msg's
// Content-Type but for a fresh boundary; its root and other parts are
// msg's, byte for byte. A refusal is the fault to answer the reply with.
func (s *objects) localReply(ctx context.Context, msg *nats.Msg, objs []object, lim core.Limits) (*core.Message, *core.Fault) {
	var w wire
	if hf := readHeaders(msg.Header, &w); hf != nil {
		return nil, hf // not met: the reply was read with these headers
	}
	mt, params, err := mime.ParseMediaType(w.ctype)
	if err != nil || !w.pkg {
		return nil, &core.Fault{Code: core.CodeSender, Reason: fmt.Sprintf("the reply's Content-Type %q", w.ctype), Cause: err}
	}
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	boundary := params["boundary"]
	params["boundary"] = mw.Boundary()
	ctype := mime.FormatMediaType(mt, params)
	if ctype == "" {
		return nil, &core.Fault{Code: core.CodeSender, Reason: fmt.Sprintf("the reply's Content-Type %q cannot be written again", w.ctype)}
	}
	written := make(chan error, 1)
	go func() {
		err := inlineObjects(ctx, mw, msg.Data, boundary, objs)
		pw.CloseWithError(err) // nil: the reader meets io.EOF
		written <- err
	}()
	m, err := core.ReadPackage(pr, ctype, lim)
	// The read may end before the writer's last bytes (after the closing
	// delimiter) or, refused, long before: unblock the writer.
	pr.CloseWithError(errReplyRead)
	werr := <-written
	if err != nil {
		if werr != nil && !errors.Is(werr, errReplyRead) {
			// an object could not be read: that, not how the read ended
			return nil, &core.Fault{Code: core.CodeReceiver, Reason: "reading the reply's parts from the object store failed", Cause: werr}
		}
		return nil, core.FaultOf(err)
	}
	// ReadPackage returned a message: it met the closing delimiter, which
	// is written after every object was read whole (werr can only be the
	// reader closing the pipe before the writer's last bytes).
	if f := w.apply(m, false); f != nil {
		m.Close()
		return nil, f
	}
	return m, nil
}

// errReplyRead closes the pipe of localReply once its package is read.
var errReplyRead = errors.New("nats: the reply is read")

// inlineObjects writes the package data (delimited by boundary) to mw,
// each part naming an object (objectRef) replaced by the next of objs: its
// headers but the Content-Type (the object's part's own) and the
// Content-Transfer-Encoding (the object's bytes are written as they are),
// and the object's bytes read from the bucket, which must be as many as
// its size. Other parts are copied as they are.
func inlineObjects(ctx context.Context, mw *multipart.Writer, data []byte, boundary string, objs []object) error {
	mr := multipart.NewReader(bytes.NewReader(data), boundary)
	k := 0
	for {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("nats: reading the reply again: %w", err)
		}
		if _, ok := objectRef(p.Header.Get("Content-Type")); !ok {
			dst, err := mw.CreatePart(p.Header)
			if err == nil {
				_, err = io.Copy(dst, p)
			}
			if err != nil {
				return err
			}
			continue
		}
		if k == len(objs) {
			return fmt.Errorf("nats: the reply names more objects than were fetched (%d)", len(objs))
		}
		o := objs[k]
		k++
		h := maps.Clone(p.Header)
		h.Del("Content-Transfer-Encoding")
		h.Del("Content-Type")
		if o.typ != "" {
			h.Set("Content-Type", o.typ)
		}
		if err := copyObject(ctx, mw, h, o); err != nil {
			return err
		}
	}
	if k != len(objs) {
		return fmt.Errorf("nats: the reply names %d objects, %d were fetched", k, len(objs))
	}
	return mw.Close()
}

// copyObject writes o as a part with header h.
func copyObject(ctx context.Context, mw *multipart.Writer, h map[string][]string, o object) error {
	r, err := o.st.Get(ctx, o.name)
	if err != nil {
		return fmt.Errorf("nats: object %q: %w", o.name, err)
	}
	defer r.Close()
	dst, err := mw.CreatePart(h)
	if err != nil {
		return err
	}
	n, err := io.Copy(dst, &exactReader{r: r, left: o.size})
	switch {
	case err != nil && errors.Is(err, errReplyRead):
		return err
	case err != nil:
		return fmt.Errorf("nats: object %q: %w", o.name, err)
	case n != o.size:
		return fmt.Errorf("nats: object %q: %d bytes, %d announced", o.name, n, o.size)
	}
	return nil
}

// localReply is r, the reply msg (to a request to subject) whose external parts name objs, read
// again with the objects' bytes in it (see objects.localReply), within ctx
// or, when ctx has no deadline, WithTimeout. r is closed, and the objects
// are deleted whether the reply could be read or not: no one else reads
// them (a reply is delivered once).
func (t *Transport) localReply(ctx context.Context, subject string, msg *nats.Msg, r *core.Message, objs []object) (*core.Message, *core.Fault) {
	rctx := ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, t.o.timeout)
		defer cancel()
	}
	local, f := t.objs.localReply(rctx, msg, objs, t.o.limits)
	r.Close()
	t.dropReplyObjects(ctx, subject, objs)
	return local, f
}

// dropReplyObjects deletes the objects of a reply read; a failure is
// logged, the reply stays good.
func (t *Transport) dropReplyObjects(ctx context.Context, subject string, objs []object) {
	if err := deleteObjects(ctx, objs); err != nil {
		t.o.log.WarnContext(ctx, "soap: deleting a reply's objects failed; the bucket's TTL clears them",
			slog.String("subject", subject), slog.Int("objects", len(objs)), slog.Any("err", err))
	}
}
