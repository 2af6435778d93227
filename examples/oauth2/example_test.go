package main

import (
	"context"
	"fmt"
	"os"
)

// Example runs the demo: the agent asks for a sign-in half-way, the
// credentials hook gets a token from the OAuth2 token endpoint, and the
// stream continues the same task with it to the answer.
func Example() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Println("error:", err)
	}
	// Output:
	// you: When am I free this week?
	// agent (submitted)
	// agent (working): Checking your calendar.
	// agent (auth-required): Sign in to read your calendar.
	// credentials hook, attempt 1: asking the token endpoint
	// agent: You are free on Tuesday at 10:00.
	// agent (completed)
	// tokens issued: 1; calls refused for want of a token: 0
}
