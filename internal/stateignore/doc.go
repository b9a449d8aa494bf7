// Package stateignore says which paths a stored state ignores, so that
// undo, redo and restore leave them alone (Drop), and whether the
// ignore files of some directories differ between two states
// (RulesChanged: a scoped capture then reads everything). Skip says
// why a state ignores a path, so status and show call it skipped, not
// deleted.
//
// A path that is ignored in the state an undo, redo or restore starts
// from, or in the state it goes to, is never deleted or rewritten: a turn
// that un-ignored files (rewrote .gitignore) must not make its undo
// delete them. Each state's rules are its own ignore files, read from
// the stored tree, with the built-in rules and "inside an ignored
// directory is ignored", as capture applies them, and the directories
// its capture skipped for what they held (a CACHEDIR.TAG, ...), which
// its snapshot record lists (model.SkipInfo): a tree cannot tell them
// from directories that did not exist. A path the tree holds that a
// pattern of its ignore files ignores was captured because git tracked
// it ("git add -f"): it is not ignored in that state. In such a
// directory only what the tree holds is not ignored. A path the tree
// lacks is judged by the patterns, as the tree cannot tell whether it
// was tracked, or there untracked. But the record lists what git
// tracked then that the tree lacks (SkipInfo.TrackedIgnored: a file
// deleted but still in git's index, or a directory deleted with all
// it held, node_modules too). Such a path was absent, not ignored: a
// restore to the state deletes it. One the list left out counts as ignored, the safe
// side. An ignore file that is itself ignored is
// in no tree, but its capture applied it: the record names a blob of
// what the capture read of it (SkipInfo.RuleBlobs), applied like the
// tree's own. A record made before those rules applies none. Where the
// rules are unknown (the record says so, or the blob is gone) a path
// below that directory the tree lacks counts as ignored: data safety
// beats a complete undo.
//
// # Terms
//
//   - Generated directory: one the capture skipped for what it held
//     (evidence), listed in the state's snapshot record.
//   - Legacy state: one recorded before the evidence rules; its skips
//     are unknown, so a directory of a name skipped by name then
//     (legacyNamed) that the tree lacks counts as skipped.
package stateignore
