//go:build !unix

package main

import "errors"

var errNoSpace = errors.New("no space left on device")
