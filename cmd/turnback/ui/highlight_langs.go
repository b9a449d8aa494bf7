package ui

import (
	"path/filepath"
	"strings"
	"sync"
)

// Scanning modes beyond plain code.
const (
	modeCode     = iota
	modeMarkdown // headings and `code`
	modeMarkup   // HTML and XML tags
	modeKeys     // YAML and TOML keys
)

// lang is what the scanner knows of one language family.
type lang struct {
	mode           int
	keywords       map[string]bool
	builtins       map[string]bool
	decls          map[string]bool // keywords whose next word is a declared name
	lineComments   []string
	hashAfterSpace bool // '#' starts a comment only at a word's start
	blockOpen      string
	blockClose     string
	quotes         string // characters that open a string
	raw            string // quotes whose strings have no escapes
	triple         bool   // """ and ''' strings
	dollar         bool   // '$' is part of names
	tomlKeys       bool   // "key =" as well as "key:"
	noNumbers      bool
	lifetimes      bool // a ' that does not close soon is a Rust lifetime
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// langTables is what langFor looks up.
type langTables struct {
	byExt  map[string]*lang // by lower-case file extension
	byName map[string]*lang // by whole lower-case base name, without extension
}

// langs builds the tables on first use: most processes never highlight.
var langs = sync.OnceValue(newLangTables)

// newLangTables makes the languages and the tables that find them.
func newLangTables() langTables {
	langGo := &lang{
		keywords: words(`break case chan const continue default defer else fallthrough for func go goto
			if import interface map package range return select struct switch type var`),
		builtins: words(`append cap clear close complex copy delete imag len make max min new panic print
			println real recover any bool byte comparable complex64 complex128 error float32 float64
			int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr
			true false iota nil`),
		decls:        words(`func type`),
		lineComments: []string{"//"},
		blockOpen:    "/*", blockClose: "*/",
		quotes: "\"'`", raw: "`",
	}
	langC := &lang{
		keywords: words(`abstract as async await auto base break case catch class const constexpr
			continue default delete do else enum export extends extern final finally fn for foreach
			friend from function goto if impl implements import in inline instanceof interface let
			loop match mod move mut namespace new operator override package private protected pub
			public readonly register return sealed sizeof static struct super switch template this
			throw throws trait try typedef typeof typename union unsafe use using var virtual void
			volatile where while with yield val fun when object is`),
		builtins: words(`bool boolean byte char double float int long short signed unsigned string
			String Object i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 str Self
			Some None Ok Err Vec Option Result true false null nullptr undefined NULL
			number any unknown never console`),
		decls:        words(`class function fn struct enum interface trait type impl fun`),
		lineComments: []string{"//"},
		blockOpen:    "/*", blockClose: "*/",
		quotes: "\"'`", dollar: true,
	}
	langRust := rust(langC)
	langPython := &lang{
		keywords: words(`and as assert async await break class continue def del elif else except
			finally for from global if import in is lambda match nonlocal not or pass raise return
			try while with yield case`),
		builtins: words(`True False None self cls print len range int str float bool list dict set
			tuple object type isinstance super open enumerate zip map filter sorted min max sum any all`),
		decls:        words(`def class`),
		lineComments: []string{"#"},
		quotes:       "\"'", triple: true,
	}
	langShell := &lang{
		keywords: words(`if then else elif fi for while until do done case esac in function return
			break continue local export readonly declare set unset shift exit source alias trap eval exec`),
		builtins:       words(`echo printf cd test read true false`),
		decls:          words(`function`),
		lineComments:   []string{"#"},
		hashAfterSpace: true,
		quotes:         "\"'`", raw: "'",
	}
	langRuby := &lang{
		keywords: words(`alias and begin break case class def defined? do else elsif end ensure false
			for if in module next nil not or redo rescue retry return self super then true undef
			unless until when while yield require require_relative attr_reader attr_accessor`),
		builtins:       words(`puts print raise lambda proc`),
		decls:          words(`def class module`),
		lineComments:   []string{"#"},
		hashAfterSpace: true,
		quotes:         "\"'`",
	}
	langJSON := &lang{
		keywords: words(`true false null`),
		quotes:   "\"",
	}
	langYAML := &lang{
		mode:           modeKeys,
		keywords:       words(`true false null yes no on off True False Null`),
		lineComments:   []string{"#"},
		hashAfterSpace: true,
		quotes:         "\"'", raw: "'",
	}
	langTOML := &lang{
		mode:           modeKeys,
		keywords:       words(`true false`),
		lineComments:   []string{"#"},
		hashAfterSpace: true,
		quotes:         "\"'", raw: "'", triple: true,
		tomlKeys: true,
	}
	langMarkdown := &lang{
		mode:      modeMarkdown,
		blockOpen: "<!--", blockClose: "-->",
		quotes: "`", raw: "`",
		noNumbers: true,
	}
	langMarkup := &lang{
		mode:      modeMarkup,
		blockOpen: "<!--", blockClose: "-->",
	}
	langSQL := &lang{
		keywords: words(`select from where and or not insert into values update set delete create
			table index view drop alter add primary key foreign references join left right inner
			outer on as group by order having limit offset union all distinct null is in like
			between case when then else end begin commit rollback with
			SELECT FROM WHERE AND OR NOT INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE INDEX
			VIEW DROP ALTER ADD PRIMARY KEY FOREIGN REFERENCES JOIN LEFT RIGHT INNER OUTER ON AS
			GROUP BY ORDER HAVING LIMIT OFFSET UNION ALL DISTINCT NULL IS IN LIKE BETWEEN CASE
			WHEN THEN ELSE END BEGIN COMMIT ROLLBACK WITH`),
		lineComments: []string{"--"},
		blockOpen:    "/*", blockClose: "*/",
		quotes: "'\"",
	}
	return langTables{
		byExt: map[string]*lang{
			".go": langGo,
			".c":  langC, ".h": langC, ".cc": langC, ".cpp": langC, ".cxx": langC, ".hpp": langC,
			".hh": langC, ".m": langC, ".java": langC, ".js": langC, ".jsx": langC, ".mjs": langC,
			".cjs": langC, ".ts": langC, ".tsx": langC, ".mts": langC, ".cts": langC, ".rs": langRust,
			".cs": langC, ".kt": langC, ".kts": langC, ".swift": langC, ".scala": langC,
			".dart": langC, ".php": langC, ".zig": langC, ".proto": langC, ".groovy": langC,
			".gradle": langC, ".css": langC, ".scss": langC, ".less": langC,
			".py": langPython, ".pyi": langPython,
			".sh": langShell, ".bash": langShell, ".zsh": langShell, ".ksh": langShell,
			".rb": langRuby, ".rake": langRuby, ".gemspec": langRuby,
			".json": langJSON, ".jsonl": langJSON, ".ndjson": langJSON,
			".yaml": langYAML, ".yml": langYAML,
			".toml": langTOML, ".ini": langTOML, ".cfg": langTOML, ".conf": langTOML,
			".md": langMarkdown, ".markdown": langMarkdown,
			".html": langMarkup, ".htm": langMarkup, ".xml": langMarkup, ".svg": langMarkup,
			".xhtml": langMarkup, ".vue": langMarkup, ".plist": langMarkup,
			".sql": langSQL,
		},
		byName: map[string]*lang{
			"makefile": langShell, "gnumakefile": langShell, "dockerfile": langShell,
			".bashrc": langShell, ".zshrc": langShell, ".profile": langShell, ".envrc": langShell,
			"gemfile": langRuby, "rakefile": langRuby, "go.mod": langGo, "go.work": langGo,
			".gitignore": langShell, ".gitattributes": langShell, ".editorconfig": langTOML,
		},
	}
}

func rust(c *lang) *lang {
	l := *c
	l.lifetimes = true
	return &l
}

// langFor picks the language of a path by its base name, then its extension.
func langFor(path string) *lang {
	t := langs()
	base := strings.ToLower(filepath.Base(filepath.FromSlash(path)))
	if l := t.byName[base]; l != nil {
		return l
	}
	return t.byExt[filepath.Ext(base)]
}
