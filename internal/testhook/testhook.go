package testhook

// SetRestoreHook sets a function every restore repo (a *turnback.Repo)
// runs calls before each named step (see restore.Options.Hook); an error
// from it fails the step. Package turnback sets it when it is loaded.
// repo is an any because this package cannot import turnback.
var SetRestoreHook func(repo any, h func(step string) error)
