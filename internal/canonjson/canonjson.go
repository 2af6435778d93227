package canonjson

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Canonical returns the canonical encoding of the JSON value data: the
// form in which a2a.Part.Equal compares data parts, so that two values are
// equal exactly when their canonical encodings are equal byte for byte. A
// server that keeps JSON in a database (PostgreSQL's jsonb, for one) gives
// an object's members back in another order and its numbers written
// otherwise; the value is the same.
//
// In the canonical encoding:
//
//   - there is no white space between tokens;
//   - an object's members are sorted by name (by the bytes of the name's
//     canonical encoding), and of members with the same name only the last
//     is kept, as encoding/json and JavaScript's JSON.parse keep it;
//   - an array keeps its order;
//   - a string is written with the fewest escapes: \" and \\, the short
//     escapes \b \f \n \r \t, and \u00XX for the other control
//     characters; every other character is itself, so "\u00e9" and "é" are
//     the same string; invalid UTF-8 and a surrogate that is not part of a
//     pair are U+FFFD, as encoding/json reads them;
//   - a number is written by its exact decimal value, as its significant
//     digits and a power of ten (1.5 as 15e-1, 100 as 1e2, -0 as 0): 1, 1.0,
//     1e0 and 10E-1 are the same number, and 9007199254740993 is not
//     9007199254740992, although float64 makes them one. A number whose
//     exponent does not fit in 60 bits keeps its text.
//
// Data that is not a single valid JSON value (white space around it
// allowed), or that nests deeper than 10,000 levels, is returned as it is,
// so that it equals only itself. The result never shares memory with data.
func Canonical(data []byte) []byte {
	c := canonicalizer{in: data, out: make([]byte, 0, len(data)), toks: make([]token, 0, 16)}
	c.space()
	if !c.value(0) {
		return bytes.Clone(data)
	}
	if c.space(); c.pos != len(data) {
		return bytes.Clone(data)
	}
	if !c.unsorted {
		return c.out
	}
	// Write it again from the tokens, each object's members in name order:
	// every name and scalar is copied once, however deep the nesting.
	e := emitter{canonicalizer: &c, dst: make([]byte, 0, len(c.out))}
	e.emit(0)
	return e.dst
}

// Equal reports whether two JSON values are equal: by their bytes when
// they are the same, else by their canonical encodings.
func Equal(a, b []byte) bool {
	return bytes.Equal(a, b) || bytes.Equal(Canonical(a), Canonical(b))
}

// maxDepth is how deep arrays and objects may nest, as in encoding/json.
const maxDepth = 10000

// maxExponent bounds the exponents the canonical form computes with.
const maxExponent = 1 << 60

// canonicalizer reads a JSON value from in and writes to out its encoding
// with every name and scalar canonical and every member where it came. It
// records the value's structure in toks, to sort members by.
type canonicalizer struct {
	in       []byte
	pos      int
	out      []byte
	toks     []token
	unsorted bool // an object's members are not in name order, or a name repeats
}

// token is one piece of the value's structure: an object or array opening
// ('{', '['; end is the index of its closing token), its closing ('}',
// ']'), a member's name (':') or a scalar ('v'), the last two written at
// out[start:end].
type token struct {
	kind       byte
	start, end int
}

func (c *canonicalizer) space() {
	for c.pos < len(c.in) {
		switch c.in[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

func (c *canonicalizer) value(depth int) bool {
	if c.pos >= len(c.in) || depth > maxDepth {
		return false
	}
	if b := c.in[c.pos]; b == '{' || b == '[' {
		return c.container(depth)
	}
	at := len(c.out)
	if !c.scalar() {
		return false
	}
	c.toks = append(c.toks, token{kind: 'v', start: at, end: len(c.out)})
	return true
}

func (c *canonicalizer) scalar() bool {
	switch b := c.in[c.pos]; {
	case b == '"':
		return c.str()
	case b == '-' || b >= '0' && b <= '9':
		return c.number()
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(c.in)-c.pos >= len(lit) && string(c.in[c.pos:c.pos+len(lit)]) == lit {
			c.pos += len(lit)
			c.out = append(c.out, lit...)
			return true
		}
	}
	return false
}

// container reads an object or an array.
func (c *canonicalizer) container(depth int) bool {
	open := c.in[c.pos]
	closing := byte(']')
	if open == '{' {
		closing = '}'
	}
	c.pos++
	c.out = append(c.out, open)
	at := len(c.toks)
	c.toks = append(c.toks, token{kind: open})
	if c.space(); c.pos >= len(c.in) || c.in[c.pos] != closing {
		if !c.items(open, closing, depth) {
			return false
		}
	}
	c.pos++
	c.out = append(c.out, closing)
	c.toks[at].end = len(c.toks)
	c.toks = append(c.toks, token{kind: closing})
	return true
}

// items reads the members of an object or the elements of an array, up to
// its closing bracket.
func (c *canonicalizer) items(open, closing byte, depth int) bool {
	prev := token{start: -1} // the last member name, in an object
	for {
		if open == '{' {
			if c.pos >= len(c.in) || c.in[c.pos] != '"' {
				return false
			}
			name := token{kind: ':', start: len(c.out)}
			if !c.str() {
				return false
			}
			name.end = len(c.out)
			c.toks = append(c.toks, name)
			if prev.start >= 0 && bytes.Compare(c.out[prev.start:prev.end], c.out[name.start:name.end]) >= 0 {
				c.unsorted = true
			}
			prev = name
			c.space()
			if c.pos >= len(c.in) || c.in[c.pos] != ':' {
				return false
			}
			c.pos++
			c.out = append(c.out, ':')
			c.space()
		}
		if !c.value(depth + 1) {
			return false
		}
		c.space()
		if c.pos >= len(c.in) {
			return false
		}
		if c.in[c.pos] == closing {
			return true
		}
		if c.in[c.pos] != ',' {
			return false
		}
		c.pos++
		c.out = append(c.out, ',')
		c.space()
	}
}

// emitter writes a value again from its tokens, sorting objects' members.
type emitter struct {
	*canonicalizer
	dst []byte
	// members is a stack of the members of the objects being written.
	members []int // each the index of a member's name token
}

// emit writes the value whose first token is toks[i], and returns the
// index of the token after it.
func (e *emitter) emit(i int) int {
	t := e.toks[i]
	switch t.kind {
	case 'v':
		e.dst = append(e.dst, e.out[t.start:t.end]...)
		return i + 1
	case '[':
		e.dst = append(e.dst, '[')
		for j := i + 1; j < t.end; {
			if j > i+1 {
				e.dst = append(e.dst, ',')
			}
			j = e.emit(j)
		}
		e.dst = append(e.dst, ']')
		return t.end + 1
	}
	// An object: its members in name order, the last of equal names kept.
	lo := len(e.members)
	for j := i + 1; j < t.end; j = e.next(j + 1) {
		e.members = append(e.members, j)
	}
	ms := e.members[lo:]
	name := func(j int) []byte { return e.out[e.toks[j].start:e.toks[j].end] }
	slices.SortStableFunc(ms, func(a, b int) int {
		if n := bytes.Compare(name(a), name(b)); n != 0 {
			return n
		}
		return b - a
	})
	e.dst = append(e.dst, '{')
	for k, j := range ms {
		if k > 0 && bytes.Equal(name(j), name(ms[k-1])) {
			continue
		}
		if k > 0 {
			e.dst = append(e.dst, ',')
		}
		e.dst = append(e.dst, name(j)...)
		e.dst = append(e.dst, ':')
		e.emit(j + 1)
	}
	e.dst = append(e.dst, '}')
	e.members = e.members[:lo]
	return t.end + 1
}

// next returns the index of the token after the value that starts at j.
func (e *emitter) next(j int) int {
	if k := e.toks[j].kind; k == '{' || k == '[' {
		return e.toks[j].end + 1
	}
	return j + 1
}

// str reads a string and writes it with the fewest escapes.
func (c *canonicalizer) str() bool {
	c.pos++ // "
	c.out = append(c.out, '"')
	for c.pos < len(c.in) {
		b := c.in[c.pos]
		switch {
		case b == '"':
			c.pos++
			c.out = append(c.out, '"')
			return true
		case b < 0x20:
			return false
		case b >= utf8.RuneSelf:
			// Invalid UTF-8 reads as U+FFFD, as encoding/json reads it: two
			// names that differ only there are one name.
			r, size := utf8.DecodeRune(c.in[c.pos:])
			c.out = utf8.AppendRune(c.out, r)
			c.pos += size
			continue
		case b != '\\':
			c.out = append(c.out, b)
			c.pos++
			continue
		}
		if c.pos+1 >= len(c.in) {
			return false
		}
		e := c.in[c.pos+1]
		c.pos += 2
		if e != 'u' {
			i := strings.IndexByte(escapes, e)
			if i < 0 {
				return false
			}
			c.char(rune(unescaped[i]))
			continue
		}
		r, ok := c.hex4()
		if !ok {
			return false
		}
		if utf16.IsSurrogate(r) {
			// A surrogate that is not part of a pair reads as U+FFFD, as
			// encoding/json reads it.
			high := r
			low, ok := c.lowSurrogate(high)
			r = utf8.RuneError
			if ok {
				r = utf16.DecodeRune(high, low)
			}
		}
		c.char(r)
	}
	return false
}

// escapes are the letters of JSON's short escapes, and unescaped the
// characters they stand for.
const (
	escapes   = `"\/bfnrt`
	unescaped = "\"\\/\b\f\n\r\t"
)

// lowSurrogate reads the \uXXXX that completes the pair high starts, if
// one follows.
func (c *canonicalizer) lowSurrogate(high rune) (rune, bool) {
	if high >= 0xdc00 || c.pos+1 >= len(c.in) || c.in[c.pos] != '\\' || c.in[c.pos+1] != 'u' {
		return 0, false
	}
	save := c.pos
	c.pos += 2
	low, ok := c.hex4()
	if !ok || low < 0xdc00 || low > 0xdfff {
		c.pos = save
		return 0, false
	}
	return low, true
}

func (c *canonicalizer) hex4() (rune, bool) {
	if c.pos+4 > len(c.in) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(c.in[c.pos:c.pos+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	c.pos += 4
	return rune(v), true
}

// char writes one character of a string, escaped only where it must be.
func (c *canonicalizer) char(r rune) {
	switch i := strings.IndexRune(unescaped, r); {
	case i >= 0 && r != '/':
		c.out = append(c.out, '\\', escapes[i])
	case r < 0x20:
		c.out = append(c.out, '\\', 'u', '0', '0', "0123456789abcdef"[r>>4], "0123456789abcdef"[r&0xf])
	default:
		c.out = utf8.AppendRune(c.out, r)
	}
}

// number reads a number and writes its exact decimal value as significant
// digits and a power of ten.
func (c *canonicalizer) number() bool {
	start := c.pos
	neg := c.in[c.pos] == '-'
	if neg {
		c.pos++
	}
	digitsAt := c.pos
	switch {
	case c.pos < len(c.in) && c.in[c.pos] == '0':
		c.pos++
	case c.pos < len(c.in) && c.in[c.pos] >= '1' && c.in[c.pos] <= '9':
		c.digits()
	default:
		return false
	}
	intPart := c.in[digitsAt:c.pos]
	var frac []byte
	if c.pos < len(c.in) && c.in[c.pos] == '.' {
		c.pos++
		at := c.pos
		if c.digits() == 0 {
			return false
		}
		frac = c.in[at:c.pos]
	}
	exp := int64(0)
	if c.pos < len(c.in) && (c.in[c.pos] == 'e' || c.in[c.pos] == 'E') {
		c.pos++
		at := c.pos
		if c.pos < len(c.in) && (c.in[c.pos] == '+' || c.in[c.pos] == '-') {
			c.pos++
		}
		if c.digits() == 0 {
			return false
		}
		e, err := strconv.ParseInt(string(c.in[at:c.pos]), 10, 64)
		if err != nil || e > maxExponent || e < -maxExponent {
			c.out = append(c.out, c.in[start:c.pos]...)
			return true
		}
		exp = e
	}
	// The value is the digits of intPart and frac, times 10^(exp-len(frac)):
	// write them, then drop the leading zeros and move the trailing ones
	// into the exponent.
	at := len(c.out)
	if neg {
		c.out = append(c.out, '-')
	}
	from := len(c.out)
	c.out = append(append(c.out, intPart...), frac...)
	exp -= int64(len(frac))
	ds := bytes.TrimRight(bytes.TrimLeft(c.out[from:], "0"), "0")
	if len(ds) == 0 {
		c.out = append(c.out[:at], '0')
		return true
	}
	exp += int64(len(bytes.TrimLeft(c.out[from:], "0")) - len(ds))
	c.out = c.out[:from+copy(c.out[from:], ds)]
	if exp != 0 {
		c.out = append(c.out, 'e')
		c.out = strconv.AppendInt(c.out, exp, 10)
	}
	return true
}

// digits reads decimal digits and returns how many.
func (c *canonicalizer) digits() int {
	at := c.pos
	for c.pos < len(c.in) && c.in[c.pos] >= '0' && c.in[c.pos] <= '9' {
		c.pos++
	}
	return c.pos - at
}
