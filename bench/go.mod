module github.com/a2astream/a2astream/bench

go 1.26.0

replace github.com/a2astream/a2astream => ../

replace github.com/a2astream/a2astream/grpc => ../grpc

replace github.com/a2astream/a2astream/relay/redisrelay => ../relay/redisrelay

require (
	github.com/a2aproject/a2a-go v0.3.3
	github.com/a2astream/a2astream v0.0.0
	github.com/a2astream/a2astream/grpc v0.0.0
	github.com/a2astream/a2astream/relay/redisrelay v0.0.0
	github.com/bytedance/sonic v1.15.5
	github.com/go-json-experiment/json v1.27.2
	github.com/goccy/go-json v0.12.0
	github.com/google/pprof v0.0.0-20261105003125-4bf881d7fb0b
	github.com/r3labs/sse/v2 v2.10.0
	github.com/redis/go-redis/v9 v9.22.0
	github.com/segmentio/encoding v0.5.4
	github.com/stretchr/testify v1.12.1
	github.com/tmaxmax/go-sse v0.11.0
	go.uber.org/goleak v1.3.0
	google.golang.org/grpc v1.84.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/bytedance/gopkg v0.1.3 // indirect
	github.com/bytedance/sonic/loader v0.5.3 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/cloudwego/base64x v0.1.6 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/twitchyliquid64/golang-asm v0.15.1 // indirect
	go.uber.org/atomic v1.11.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/arch v0.0.0-20210923205945-b76863e36670 // indirect
	golang.org/x/net v0.57.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.40.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20260706201446-f0a921348800 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260706201446-f0a921348800 // indirect
	gopkg.in/cenkalti/backoff.v1 v1.1.0 // indirect
)
