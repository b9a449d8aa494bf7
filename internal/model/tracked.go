package model

import "github.com/turnback/turnback/walker"

// SkipInfoOfResult is SkipInfoOf of a whole capture's res, with what it
// found git tracking that a pattern ignores and its tree lacks.
func SkipInfoOfResult(res *walker.Result) *SkipInfo {
	s := SkipInfoOf(res.Skipped)
	s.TrackedIgnored = res.TrackedIgnored
	return s
}
