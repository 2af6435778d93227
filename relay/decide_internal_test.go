package relay

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestClosesNamesWhatEndsAQuestion(t *testing.T) {
	for _, tt := range []struct {
		e    Entry
		want bool
	}{
		{Entry{Name: EventAnswered, Data: []byte(`{"prompt":2,"text":"Paris"}`)}, true},
		{Entry{Name: EventAnswered, Data: []byte(`{"prompt":2,"text":"more","append":true}`)}, true},
		{Entry{Name: EventAnswered, Data: []byte(`{"prompt":7,"text":"Rome"}`)}, false},
		{Entry{Name: EventAnswered, Data: []byte(`not JSON`)}, true},
		{Entry{Name: EventInput, Data: []byte(`{"prompt":3}`)}, true},
		{Entry{Name: EventEnd, Data: []byte(`{}`)}, true},
		{Entry{Name: EventFailure, Data: []byte(`{}`)}, true},
		{Entry{Name: EventNotice, Data: []byte(`{}`)}, false},
		{Entry{Name: EventStatus, Data: []byte(`{}`)}, false},
		{Entry{Name: EventMessage, Data: []byte(`{}`)}, false},
		{Entry{Name: EventArtifact, Data: []byte(`{}`)}, false},
	} {
		require.Equal(t, tt.want, closes(tt.e, 2), "%s %s", tt.e.Name, tt.e.Data)
	}
}

func TestLostReplyEndsEveryPageOfALostLogOnce(t *testing.T) {
	const epoch = "new"
	for _, tt := range []struct {
		name  string
		id    ID
		idErr error
		want  int
	}{
		{"an ID of the lost log", ID{Epoch: "old", Seq: 9}, nil, lostGone},
		{"an ID of the lost log at its start", ID{Epoch: "old", Seq: 0}, nil, lostGone},
		{"an ID that does not parse", ID{}, ErrBadID, lostGone},
		{"an ID past the lost ending", ID{Epoch: epoch, Seq: 2}, nil, lostGone},
		{"the gone event's ID", ID{Epoch: epoch, Seq: 0}, nil, lostEnd},
		{"the lost ending's ID", ID{Epoch: epoch, Seq: 1}, nil, lostTold},
	} {
		require.Equal(t, tt.want, lostReply(tt.id, tt.idErr, epoch), tt.name)
	}
}
