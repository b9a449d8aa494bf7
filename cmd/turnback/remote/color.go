package remote

// color reports whether what the command writes on stdout takes colour.
func (e *Env) color() bool { return e.Color != nil && e.Color() }

// colorErr reports whether what the command writes on stderr takes
// colour.
func (e *Env) colorErr() bool { return e.ColorErr != nil && e.ColorErr() }
