// Package ui is "turnback ui": a full-screen terminal view of a folder's
// sessions and turns, the paths and diff of the selected turn, and the
// actions of the CLI (undo, redo, path undo, merge, restore of a
// checkpoint), each shown as its dry-run plan and run only once the user
// confirms it.
//
// The UI calls only the library (package turnback): every operation
// opens the folder's store, works and closes it (so agents' hooks never
// wait for an open UI), and goes to the watch daemon when one serves the
// folder. It renders only the rows on screen, so long lists and large
// diffs scroll at the same speed as short ones.
//
// Model is a bubbletea model: tests drive it with key messages and
// compare View at a fixed size with golden files.
package ui
