// Package report holds what a benchmark run records and how it is shown:
// results.json (Results, Sample, TreeResult, Cell, Config), the summary,
// the report results.md and the chart chart.svg.
//
// # Terms
//
//   - Summarize: groups measured samples by scenario and tree. It takes
//     each engine's median, minimum and maximum.
//   - Pair ratio: an engine's repetition divided by shadow git's
//     repetition of the same run. The median of those is reported, so a
//     busy moment hits both sides.
//   - Target: the ratio a scenario must reach. Pass and Verdict apply it.
//   - Peer: shadow git.
//   - Markdown: renders report.md.tmpl. The template holds the prose; Go
//     formats the numbers.
//   - Merge: reads several runs' results.json into one, with notes where
//     they differ.
//
// # Failure behaviour
//
// A cell with no sample is left out. A failed sample counts in Failed
// and makes the cell a MISS. A value that cannot be computed prints as
// "—". Write and Merge return file system and JSON errors.
package report
