package callmark_test

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/internal/callmark"
)

func TestMarksAreReadAtAnyDepthAndRespondedWins(t *testing.T) {
	base := io.ErrUnexpectedEOF
	unsent := &callmark.Unsent{Err: base}
	connect := &callmark.Unsent{Err: &callmark.Connect{Addr: "agent:443", Err: base}}
	responded := &callmark.Responded{Err: base}
	for _, tc := range []struct {
		name              string
		err               error
		unsent, responded bool
		addr              string
		text              string
	}{
		{"plain", base, false, false, "", "unexpected EOF"},
		{"nil", nil, false, false, "", ""},
		{"unsent", unsent, true, false, "", "unexpected EOF"},
		{"unsent, wrapped", fmt.Errorf("call: %w", unsent), true, false, "", "call: unexpected EOF"},
		{"could not connect", connect, true, false, "agent:443", "unexpected EOF"},
		{"responded", responded, false, true, "", "unexpected EOF"},
		{"unsent inside responded", &callmark.Responded{Err: unsent}, false, true, "", "unexpected EOF"},
		{"responded inside unsent", &callmark.Unsent{Err: responded}, false, true, "", "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.unsent, callmark.IsUnsent(tc.err), "IsUnsent")
			require.Equal(t, tc.responded, callmark.IsResponded(tc.err), "IsResponded")
			addr, ok := callmark.Addr(tc.err)
			require.Equal(t, tc.addr, addr, "Addr")
			require.Equal(t, tc.addr != "", ok, "Addr's ok")
			if tc.err != nil {
				require.ErrorIs(t, tc.err, base, "a mark keeps its error's identity")
				require.Equal(t, tc.text, tc.err.Error(), "a mark adds nothing to its error's text")
			}
		})
	}
}

func TestUnwrapRespondedTakesOnlyTheOuterMark(t *testing.T) {
	base := errors.New("reset")
	err, ok := callmark.UnwrapResponded(&callmark.Responded{Err: base})
	require.True(t, ok)
	require.Same(t, base, err)

	wrapped := fmt.Errorf("x: %w", &callmark.Responded{Err: base})
	err, ok = callmark.UnwrapResponded(wrapped)
	require.False(t, ok, "a mark under another error is not the outer mark")
	require.Same(t, wrapped, err)
}
