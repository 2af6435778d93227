// Package linked holds no code: its test is one program that links a2a-go
// v0.3.3's gRPC server (with its generated a2apb, which registers the A2A
// spec's proto names a2a.v1.*) beside github.com/a2astream/a2astream/grpc,
// and calls the one with the other in-process, as a Go agent built on
// a2a-go that calls other agents with a2astream over gRPC does.
package linked
