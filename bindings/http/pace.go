package http

import (
	"net/http"
	"time"
)

// pace holds a request body to its bound (WithBodyTimeout, WithMinBodyRate)
// through the connection's read deadline: the body has window from the
// start to bring quota bytes, and each time it has, the deadline moves to
// window past that moment, never past until (the server's ReadTimeout).
// bodyReader calls arrived after each read that ended without an error.
//
// It never moves the deadline once the body has ended: net/http then reads
// the connection in the background, with no deadline, to see the client
// go, and a deadline set then would end that read and cancel the request's
// context while the handler still works.
type pace struct {
	rc     *http.ResponseController
	window time.Duration
	quota  int64     // bytes that earn the next window
	until  time.Time // no deadline past it; zero: none
	next   int64     // the count of bytes read that earns the next window
}

// startPace sets the first deadline of r's body, or returns nil when there
// is no bound: switched off, a request without a body (net/http is already
// reading its connection in the background), or a ResponseWriter that
// cannot set deadlines.
func (s *handler) startPace(w http.ResponseWriter, r *http.Request) *pace {
	window := s.o.bodyTimeout
	if window < 0 || r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	quota := int64(1)
	if s.o.minRate > 0 {
		quota = max(1, int64(float64(s.o.minRate)*window.Seconds()))
	}
	p := &pace{rc: http.NewResponseController(w), window: window, quota: quota, next: quota}
	now := time.Now()
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.ReadTimeout > 0 {
		p.until = now.Add(srv.ReadTimeout)
	}
	if p.deadline(now) != nil {
		return nil
	}
	return p
}

// arrived moves the deadline when n bytes read in all earn another window.
func (p *pace) arrived(n int64) {
	if n < p.next {
		return
	}
	p.next = n + p.quota
	_ = p.deadline(time.Now())
}

func (p *pace) deadline(now time.Time) error {
	d := now.Add(p.window)
	if !p.until.IsZero() && d.After(p.until) {
		d = p.until
	}
	return p.rc.SetReadDeadline(d)
}
