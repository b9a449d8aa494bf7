package turnback

// What a program that serves a Repo to others (the daemon,
// internal/daemon) needs beyond the library's operations: the options to
// make each request's view with, and the steps of its restores as they
// begin, to stream to the client.

// Options returns the options r works with: those it was opened or
// made (View) with, its session in Session.
func (r *Repo) Options() Options { return r.opts }

// ReportSteps has every restore r runs call report with the name of each
// step as it begins (see restore.Options.Hook), before any hook r had.
// report cannot fail a step.
func (r *Repo) ReportSteps(report func(step string)) {
	next := r.hook
	r.hook = func(name string) error {
		report(name)
		if next != nil {
			return next(name)
		}
		return nil
	}
}
