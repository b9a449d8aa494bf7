// Package treepath holds the rules over paths inside a work tree as
// undo, redo and restore take them: slash-separated, relative to the
// work tree, "" for the tree itself. Clean checks a partial undo's
// paths, Under and Rel place a path, Dirs lists the directories a
// scoped capture reads, Names the names it reads in them, KeepVouched keeps of a restore's actions those
// a partial state vouches for, and SortedUnique and SortedKeys make
// sorted lists of paths.
//
// Nothing here reads the folder or a store.
package treepath
