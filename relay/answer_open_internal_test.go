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
		{Entry{Name: EventError, Data: []byte(`{}`)}, true},
		{Entry{Name: EventNotice, Data: []byte(`{}`)}, false},
		{Entry{Name: EventStatus, Data: []byte(`{}`)}, false},
		{Entry{Name: EventMessage, Data: []byte(`{}`)}, false},
		{Entry{Name: EventArtifact, Data: []byte(`{}`)}, false},
	} {
		require.Equal(t, tt.want, closes(tt.e, 2), "%s %s", tt.e.Name, tt.e.Data)
	}
}
