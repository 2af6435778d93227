module github.com/a2astream/a2astream/interop

go 1.25

replace github.com/a2astream/a2astream => ../

require (
	github.com/a2aproject/a2a-go v0.3.3
	github.com/a2astream/a2astream v0.0.0-00010101000000-000000000000
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
)

require (
	github.com/google/uuid v1.6.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sync v0.15.0 // indirect
)
