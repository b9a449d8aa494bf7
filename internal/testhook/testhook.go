package testhook

import "context"

// SetRestoreHook sets a function every restore repo (a *turnback.Repo)
// runs calls before each named step (see restore.Options.Hook); an error
// from it fails the step. Package turnback sets it when it is loaded.
// repo is an any because this package cannot import turnback.
var SetRestoreHook func(repo any, h func(step string) error)

// StripRevs takes Rev and Revs out of a session's record in repo (a
// *turnback.Repo), as a store written before they existed has it. The
// remote's tests use it to pull into such a store. Package turnback sets
// it when it is loaded.
var StripRevs func(ctx context.Context, repo any, session string) error

// BadgerTableSize, if above zero, replaces the size of Badger's tables
// (4 MiB) in every store package cas opens. A flush or compaction
// allocates twice that size up front and zeroes it; tests, which open
// thousands of stores holding little, set it smaller in TestMain.
var BadgerTableSize int64
