package gen

// reserved are words the generator never uses as names: of the
// directory names turnback ignores at any depth (walker/ignore), the only
// one its syllables can form. A name turnback ignores would hide a whole
// generated directory from it. The set is part of the generator: a word
// added here changes the trees, so Version must change with it
// (TestVocabAvoidsIgnoredNames fails when the ignore list gains a name
// the syllables can form).
var reserved = map[string]bool{"env": true}
