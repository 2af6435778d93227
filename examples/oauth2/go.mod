module github.com/a2astream/a2astream/examples/oauth2

go 1.25.0

replace github.com/a2astream/a2astream => ../..

require (
	github.com/a2astream/a2astream v0.0.0-00010101000000-000000000000
	golang.org/x/oauth2 v0.36.0
)

require github.com/google/uuid v1.6.0 // indirect
