// Package redisrelay keeps relay logs in Redis.
package redisrelay
