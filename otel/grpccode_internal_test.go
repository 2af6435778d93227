package a2aotel

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeCode, fakeStatus and fakeStatusError have the shapes of grpc-go's
// codes.Code, *status.Status and an error with GRPCStatus, as a2agrpc's
// StatusError has.
type fakeCode uint32

type fakeStatus struct{ code fakeCode }

func (s *fakeStatus) Code() fakeCode { return s.code }

type fakeStatusError struct{ st *fakeStatus }

func (e *fakeStatusError) Error() string           { return "status" }
func (e *fakeStatusError) GRPCStatus() *fakeStatus { return e.st }

// otherShape has a GRPCStatus of another signature.
type otherShape struct{}

func (otherShape) Error() string          { return "other" }
func (otherShape) GRPCStatus() (int, int) { return 1, 2 }

func TestGRPCCodeOfAnError(t *testing.T) {
	var nilErr *fakeStatusError
	cases := []struct {
		name string
		err  error
		code int
		ok   bool
	}{
		{"a status error", &fakeStatusError{&fakeStatus{14}}, 14, true},
		{"wrapped", fmt.Errorf("call: %w", &fakeStatusError{&fakeStatus{5}}), 5, true},
		{"OK", &fakeStatusError{&fakeStatus{0}}, 0, true},
		{"a nil status", &fakeStatusError{}, 0, false},
		{"a nil error of the type", nilErr, 0, false},
		{"another signature", otherShape{}, 0, false},
		{"no status", errors.New("plain"), 0, false},
		{"nil", nil, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, ok := grpcCode(tc.err)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.code, code)
		})
	}
}
