package proxy

import (
	"errors"
	"net"
)

// errClosed is the error of Listen on a closed proxy.
var errClosed = errors.New("proxy: closed")

// StopListening closes the proxy's listener, so that a dial to Addr is
// refused (nothing listens on the port) until Listen: to a client it is an
// agent that is down, and its request provably never left. Connections
// already accepted go on. It does nothing when the proxy is not listening.
func (p *Proxy) StopListening() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		return nil
	}
	err := p.ln.Close()
	p.ln = nil
	return err
}

// Listen listens on Addr again after StopListening; it does nothing when the
// proxy is listening. It fails when the port has been taken meanwhile, or
// the proxy is closed.
func (p *Proxy) Listen() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.closed:
		return errClosed
	case p.ln != nil:
		return nil
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return err
	}
	p.ln = ln
	p.wg.Add(1)
	go p.serve(ln)
	return nil
}
