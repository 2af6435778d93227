module github.com/a2astream/a2astream/examples/webchat/redis

go 1.25

replace github.com/a2astream/a2astream => ../../..

replace github.com/a2astream/a2astream/relay/redisrelay => ../../../relay/redisrelay

require (
	github.com/a2astream/a2astream v0.0.0
	github.com/a2astream/a2astream/relay/redisrelay v0.0.0-00010101000000-000000000000
	github.com/redis/go-redis/v9 v9.22.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	go.uber.org/atomic v1.11.0 // indirect
	golang.org/x/sys v0.30.0 // indirect
)
