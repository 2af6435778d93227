#!/usr/bin/env bash
# Regenerates the Go code of the A2A protos under internal/a2apb from
# proto/lf/a2a/v1/a2a.proto (A2A 1.0, package a2apbv1) and
# proto/a2a/v0/a2a.proto (A2A 0.3, package a2apbv03).
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

# gen FILE GO_IMPORT_PATH GO_PACKAGE_NAME
gen() {
	local m="M$1=$MODULE/$2;$3"
	rm -f "$2"/*.pb.go
	protoc -I proto -I "$INCLUDE" \
		--plugin=protoc-gen-go="$bin/protoc-gen-go" \
		--plugin=protoc-gen-go-grpc="$bin/protoc-gen-go-grpc" \
		--go_out=. --go_opt=module="$MODULE" --go_opt="$m" \
		--go-grpc_out=. --go-grpc_opt=module="$MODULE" --go-grpc_opt="$m" \
		"$1"
}

gen lf/a2a/v1/a2a.proto internal/a2apb/v1 a2apbv1
gen a2a/v0/a2a.proto internal/a2apb/v03 a2apbv03

protoc --version
