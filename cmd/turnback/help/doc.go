// Package help holds the long help of every turnback command and its
// examples, as text files named after the command (turnback.txt for the
// root): <command>.txt is the long help, <command>.example.txt the
// examples, kept as documentation to read and review as such. Fill
// gives a command tree its texts.
//
// # Failure behaviour
//
// A command without a file gets no text (TestHelpTexts in the command's
// tests checks that every command has one and every file is used).
package help
