// Package help holds the long help of every turnback command and its
// examples, as text files named after the command. <command>.txt is the
// long help and <command>.example.txt the examples; turnback.txt is the
// root's. Fill gives a command tree its texts. Markdown renders the tree
// as docs/commands.md.
//
// # Invariants
//
//   - Every command has its file, and every file is used: TestHelpTexts.
//   - docs/commands.md is what Markdown renders: TestCommandsDocDrift.
//     Run go generate ./cmd/turnback/cli after changing a text.
package help
