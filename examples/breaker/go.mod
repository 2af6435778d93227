module github.com/a2astream/a2astream/examples/breaker

go 1.25

replace github.com/a2astream/a2astream => ../..

require (
	github.com/a2astream/a2astream v0.0.0-00010101000000-000000000000
	github.com/sony/gobreaker/v2 v2.4.0
)

require github.com/google/uuid v1.6.0 // indirect
