package proxy

import (
	"bytes"
	"strconv"
	"strings"
)

// rewriteCard returns the response raw (head and whole body) with every
// "//target" in its body (the URLs an agent card gives for its interfaces)
// replaced by "//addr", so that a client that reads the card through the
// proxy also sends its calls through it. A chunked body is de-chunked and
// the head gets the new Content-Length. n is the number of URLs rewritten;
// with n 0, or a response it cannot read, raw is returned as it is.
func rewriteCard(raw []byte, target, addr string) (out []byte, n int) {
	end := bytes.Index(raw, []byte("\r\n\r\n"))
	if end < 0 {
		return raw, 0
	}
	head, body := string(raw[:end]), raw[end+4:]
	lines := strings.Split(head, "\r\n")
	kept := lines[:1]
	chunked := false
	for _, l := range lines[1:] {
		name, value, _ := strings.Cut(l, ":")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "transfer-encoding":
			chunked = strings.Contains(strings.ToLower(value), "chunked")
			continue
		case "content-length", "etag":
			continue
		}
		kept = append(kept, l)
	}
	if chunked {
		var ok bool
		if body, ok = dechunk(body); !ok {
			return raw, 0
		}
	}
	body, n = replaceHost(body, "//"+target, "//"+addr)
	if n == 0 {
		return raw, 0
	}
	kept = append(kept, "Content-Length: "+strconv.Itoa(len(body)))
	out = append([]byte(strings.Join(kept, "\r\n")+"\r\n\r\n"), body...)
	return out, n
}

// replaceHost replaces every from (a "//host:port") in b that is not
// followed by another digit of a longer port.
func replaceHost(b []byte, from, to string) ([]byte, int) {
	var out []byte
	n := 0
	for {
		i := bytes.Index(b, []byte(from))
		if i < 0 {
			return append(out, b...), n
		}
		j := i + len(from)
		if j < len(b) && b[j] >= '0' && b[j] <= '9' {
			out = append(out, b[:j]...)
		} else {
			out = append(append(out, b[:i]...), to...)
			n++
		}
		b = b[j:]
	}
}

// dechunk decodes a complete chunked body (trailers ignored).
func dechunk(b []byte) ([]byte, bool) {
	var out []byte
	for {
		i := bytes.Index(b, []byte("\r\n"))
		if i < 0 {
			return nil, false
		}
		sizeText, _, _ := strings.Cut(string(b[:i]), ";")
		size, err := strconv.ParseInt(strings.TrimSpace(sizeText), 16, 64)
		if err != nil || size < 0 || int64(len(b)-i-2) < size {
			return nil, false
		}
		b = b[i+2:]
		if size == 0 {
			return out, true
		}
		out = append(out, b[:size]...)
		b = bytes.TrimPrefix(b[size:], []byte("\r\n"))
	}
}
