package several_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/internal/several"
)

// mark is how a package outside this one embeds the mark without an
// exported field: through an alias of its own.
type mark = several.Mark

type report struct {
	mark
	errs []error
}

func (r *report) Error() string   { return "several calls failed" }
func (r *report) Unwrap() []error { return r.errs }

type plain struct{}

func (plain) Error() string { return "one call failed" }

// Calls finds the mark on the error itself and through wrapping, and
// nowhere else: not on a plain error, not on a join of plain errors, not
// on nil.
func TestCallsFindsTheMarkThroughWrapping(t *testing.T) {
	r := &report{mark: mark{}, errs: []error{plain{}, plain{}}}
	require.True(t, several.Calls(r))
	require.True(t, several.Calls(fmt.Errorf("fan-out: %w", r)))
	require.False(t, several.Calls(plain{}))
	require.False(t, several.Calls(errors.Join(plain{}, plain{})))
	require.False(t, several.Calls(nil))
}
