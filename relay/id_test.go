package relay_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

func TestIDRoundTripsWithDashesInTheEpoch(t *testing.T) {
	for _, id := range []relay.ID{
		{Epoch: "e", Seq: 0},
		{Epoch: "0b9c6a53-3c2f-4f53-9d1e-2f3b1c9d0a11", Seq: 42},
		{Epoch: "a-b-", Seq: 18446744073709551615},
	} {
		got, err := relay.ParseID(id.String())
		require.NoError(t, err, id.String())
		require.Equal(t, id, got)
	}
	require.Equal(t, "ep-7", relay.ID{Epoch: "ep", Seq: 7}.String())
}

func TestParseIDRefusesWhatIsNotAnID(t *testing.T) {
	for _, s := range []string{"", "7", "-7", "ep-", "ep-+7", "ep--7x", "ep-7 ", "ep-0x7", "ep-18446744073709551616", "ep-\u0667"} {
		_, err := relay.ParseID(s)
		require.ErrorIs(t, err, relay.ErrBadID, "%q", s)
	}
}
