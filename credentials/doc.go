// Package credentials defines how a stream asks for fresh credentials
// when an agent wants them: its task enters auth-required, or it refuses a
// call with "not authenticated" because the credentials expired in the
// middle of the task.
//
// A [Hook], given to a stream with stream.WithCredentials, gets a [Request]
// with the task and the agent's message and returns the headers to send
// from then on (a new "Authorization: Bearer …"), to the origin the caller
// named only. The stream then goes on with the same task; the user's
// message is never sent again. [Func] makes a Hook of a function:
//
//	hook := credentials.Func(func(ctx context.Context, req *credentials.Request) (http.Header, error) {
//		token, err := signIn(ctx, req.Text()) // show the agent's sign-in link, wait for the user
//		if err != nil {
//			return nil, err
//		}
//		return http.Header{"Authorization": {"Bearer " + token}}, nil
//	})
//
// Package hitl is the same seam for the input an agent asks a person for.
package credentials
