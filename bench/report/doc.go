// Package report holds what a benchmark run records and how it is
// presented: the data model of results.json (Results, Sample, TreeResult,
// Cell, Config), the summary of the samples, the report results.md and
// the chart chart.svg.
//
// Algorithm. Summarize groups the measured samples (warm-ups left out)
// by scenario and tree. Per engine it takes the median, minimum and
// maximum of the repetitions' times (store sizes for the size scenario),
// the median CPU time and the median share of the machine's CPU other
// processes used. A ratio to shadow git is computed pair by pair: the
// engine's repetition i divided by shadow git's repetition i of the same
// run, and the median of those ratios is reported (PairRatios, Median),
// so a slow phase of a busy machine hits both sides of a pair. The
// turnback CLI's ratio passes when it is at most the target for
// the scenario (Target: 0.25 cold, 0.3 cold on 500k files or more, 0.7
// no-change, turn and size, 0.5 undo; the back-to-back steps b2b-* the
// same as the scenario each repeats) and no sample of the cell failed
// (Pass, Verdict).
//
// Markdown renders the report with text/template from report.md.tmpl,
// embedded: the Go side formats numbers and builds rows of cells; the
// template holds the prose and the shape of every table. Chart draws one
// log-log panel per scenario. Merge reads earlier runs' results.json
// files into one, with notes where they differ.
//
// Terms. An engine is named as in results.json ("turnback-cli",
// "turnback-cli-nowatch", "turnback-daemon", "turnback-api",
// "shadow-git", "restic"); Peer is shadow git.
//
// Failure behaviour. A cell with no measured sample is left out; a
// failed sample counts in Failed and makes the cell's verdict a MISS; a
// value that cannot be computed prints as "—". Write and Merge return
// the file system's and the JSON decoder's errors.
package report
