package cli

// docs/commands.md is the command reference, rendered from the help texts.
//go:generate go test -run ^TestCommandsDocDrift$ -count=1 . -args -update-commands-doc
