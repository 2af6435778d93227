#!/usr/bin/env bash
# Regenerates the Go code of the A2A protos under internal/a2apb:
# internal/a2apb/v1 (package a2apbv1, A2A 1.0) from
# proto/a2astream/grpc/v1/a2a.proto (the messages) and
# proto/lf/a2a/v1/service.proto (the service), internal/a2apb/v03 (package
# a2apbv03, A2A 0.3) from proto/a2astream/grpc/v03/a2a.proto and
# proto/a2a/v0/service.proto.
#
# The messages' files are under this module's own proto package and are
# generated with protoc-gen-go, whose code registers them in protobuf-go's
# global registry; the services' files are under the spec's package
# (lf.a2a.v1, a2a.v1), which gives the method paths on the wire, and are
# generated with protoc-gen-go-grpc ONLY: its code registers nothing, so a
# program may link other generated code of the spec (a2a-go's a2apb
# registers a2a.v1.*) without a name conflict at start. Never add
# --go_out to a service file: its descriptor would register under the
# spec's names again.
#
# Needs protoc with the well-known types under /usr/include (Debian:
# apt-get install protobuf-compiler). Installs the pinned generators into
# grpc/bin (ignored by git). Run from anywhere; CI runs it and fails if the
# committed code differs from what it writes.
set -euo pipefail
cd "$(dirname "$0")/.."

PROTOC_GEN_GO=google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
PROTOC_GEN_GO_GRPC=google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
MODULE=github.com/a2astream/a2astream/grpc
INCLUDE=${PROTOC_INCLUDE:-/usr/include}

command -v protoc >/dev/null || { echo "generate.sh: protoc not found (apt-get install protobuf-compiler)" >&2; exit 1; }
[ -f "$INCLUDE/google/protobuf/struct.proto" ] || { echo "generate.sh: no google/protobuf/*.proto under $INCLUDE" >&2; exit 1; }

bin=$PWD/bin
GOBIN=$bin go install "$PROTOC_GEN_GO"
GOBIN=$bin go install "$PROTOC_GEN_GO_GRPC"

# gen MESSAGES_FILE SERVICE_FILE GO_IMPORT_PATH GO_PACKAGE_NAME
gen() {
	local mm="M$1=$MODULE/$3;$4" ms="M$2=$MODULE/$3;$4"
	rm -f "$3"/*.pb.go
	protoc -I proto -I "$INCLUDE" \
		--plugin=protoc-gen-go="$bin/protoc-gen-go" \
		--go_out=. --go_opt=module="$MODULE" --go_opt="$mm" \
		"$1"
	protoc -I proto -I "$INCLUDE" \
		--plugin=protoc-gen-go-grpc="$bin/protoc-gen-go-grpc" \
		--go-grpc_out=. --go-grpc_opt=module="$MODULE" --go-grpc_opt="$mm" --go-grpc_opt="$ms" \
		"$2"
}

gen a2astream/grpc/v1/a2a.proto lf/a2a/v1/service.proto internal/a2apb/v1 a2apbv1
gen a2astream/grpc/v03/a2a.proto a2a/v0/service.proto internal/a2apb/v03 a2apbv03

protoc --version
