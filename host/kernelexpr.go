package host

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
)

// extent is a buffer parameter's extent formula, parsed: an expression of
// unsigned integers over blockDim and the kernel's integer scalars with
// + - * / and parentheses, evaluated with every step overflow-checked
// (ABI section 13.1).
type extent struct {
	text string
	root node
}

// node is one node of an extent formula: a number (arg -1), blockDim
// (arg -2), scalar parameter arg, or op applied to l and r.
type node struct {
	op   byte
	num  uint64
	arg  int
	l, r *node
}

const (
	argNum      = -1
	argBlockDim = -2
)

// parseExtent parses s; scalar returns the index of the integer scalar
// parameter of a name, or an error saying why the name cannot be used.
func parseExtent(s string, scalar func(name string) (int, error)) (*extent, error) {
	p := &exprParser{s: s, scalar: scalar}
	n, err := p.sum()
	if err == nil && p.peek() != 0 {
		err = fmt.Errorf("unexpected %q at offset %d", p.s[p.i:], p.i)
	}
	if err != nil {
		return nil, fmt.Errorf("extent %q: %w", s, err)
	}
	return &extent{text: s, root: *n}, nil
}

type exprParser struct {
	s      string
	i      int
	scalar func(string) (int, error)
}

func (p *exprParser) peek() byte {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
	if p.i == len(p.s) {
		return 0
	}
	return p.s[p.i]
}

func (p *exprParser) sum() (*node, error) {
	return p.binary("+-", p.product)
}

func (p *exprParser) product() (*node, error) {
	return p.binary("*/", p.factor)
}

func (p *exprParser) binary(ops string, next func() (*node, error)) (*node, error) {
	l, err := next()
	if err != nil {
		return nil, err
	}
	for {
		c := p.peek()
		if c == 0 || !strings.ContainsRune(ops, rune(c)) {
			return l, nil
		}
		p.i++
		r, err := next()
		if err != nil {
			return nil, err
		}
		l = &node{op: c, l: l, r: r}
	}
}

func (p *exprParser) factor() (*node, error) {
	c := p.peek()
	switch {
	case c == '(':
		p.i++
		n, err := p.sum()
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, fmt.Errorf("missing ) at offset %d", p.i)
		}
		p.i++
		return n, nil
	case c >= '0' && c <= '9':
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		v, err := strconv.ParseUint(p.s[p.i:j], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("number %s: %w", p.s[p.i:j], errors.Unwrap(err))
		}
		p.i = j
		return &node{arg: argNum, num: v}, nil
	case c == '_' || unicode.IsLetter(rune(c)):
		j := p.i
		for j < len(p.s) && (p.s[j] == '_' || unicode.IsLetter(rune(p.s[j])) || unicode.IsDigit(rune(p.s[j]))) {
			j++
		}
		name := p.s[p.i:j]
		p.i = j
		if name == "blockDim" {
			return &node{arg: argBlockDim}, nil
		}
		k, err := p.scalar(name)
		if err != nil {
			return nil, err
		}
		return &node{arg: k}, nil
	case c == 0:
		return nil, errors.New("unexpected end")
	}
	return nil, fmt.Errorf("unexpected %q at offset %d", c, p.i)
}

// eval evaluates the formula for a launch: blockDim and the parameters'
// values (signed scalars sign-extended by value), every step checked.
func (e *extent) eval(blockDim uint32, val func(i int) (uint64, error)) (uint64, error) {
	return e.root.eval(blockDim, val)
}

func (n *node) eval(blockDim uint32, val func(int) (uint64, error)) (uint64, error) {
	switch n.arg {
	case argNum:
		if n.op == 0 {
			return n.num, nil
		}
	case argBlockDim:
		return uint64(blockDim), nil
	default:
		if n.op == 0 {
			return val(n.arg)
		}
	}
	l, err := n.l.eval(blockDim, val)
	if err != nil {
		return 0, err
	}
	r, err := n.r.eval(blockDim, val)
	if err != nil {
		return 0, err
	}
	switch n.op {
	case '+':
		v, carry := bits.Add64(l, r, 0)
		if carry != 0 {
			return 0, fmt.Errorf("%d + %d overflows", l, r)
		}
		return v, nil
	case '-':
		if r > l {
			return 0, fmt.Errorf("%d - %d is negative", l, r)
		}
		return l - r, nil
	case '*':
		hi, v := bits.Mul64(l, r)
		if hi != 0 {
			return 0, fmt.Errorf("%d * %d overflows", l, r)
		}
		return v, nil
	default: // '/'
		if r == 0 {
			return 0, fmt.Errorf("%d / 0", l)
		}
		return l / r, nil
	}
}
