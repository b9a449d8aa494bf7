package ignore

import "testing"

// benchIgnore is a typical project .gitignore of about fifty patterns.
const benchIgnore = `# dependencies
/node_modules
/.pnp
.pnp.js
vendor/

# testing
/coverage
*.lcov
.nyc_output

# production
/build
/out/
*.min.js
*.map

# misc
.DS_Store
Thumbs.db
*.pem
*.swp
*~
.idea/
.vscode/*
!.vscode/settings.json
!.vscode/extensions.json

# logs
logs
*.log
npm-debug.log*
yarn-debug.log*
yarn-error.log*
!important.log

# env files
.env*.local
.envrc

# caches and generated code
*.tsbuildinfo
next-env.d.ts
**/generated/**
docs/**/*.html
/tmp/
*.o
*.a
*.so
*.class
*.py[cod]
*$py.class
__snapshots__/
*.egg-info/
.coverage
.coverage.*
htmlcov/
*.sqlite3
/data/*.csv
src/**/testdata/golden-*.json
[Bb]in/
[Oo]bj/
`

var benchPaths = []string{
	"src/index.ts",
	"src/components/Button.tsx",
	"src/components/Button.test.tsx",
	"README.md",
	"package.json",
	"logs",
	"app.log",
	"important.log",
	"dist/app.min.js",
	"src/lib/util.go",
	"src/lib/util_test.go",
	"internal/generated/api.pb.go",
	"docs/guide/intro.html",
	"docs/guide/intro.md",
	".vscode/settings.json",
	".vscode/launch.json",
	"pkg/foo/bar.py",
	"pkg/foo/bar.pyc",
	"src/a/testdata/golden-1.json",
	"Makefile",
}

func BenchmarkMatch(b *testing.B) {
	m := New().Push(Parse("", []byte(benchIgnore)))
	b.ReportAllocs()
	for b.Loop() {
		for i, p := range benchPaths {
			m.Ignored(p, i%5 == 0)
		}
	}
}
