//go:build !linux

package ref

const noAtime = 0
