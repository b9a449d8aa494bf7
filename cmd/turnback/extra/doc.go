// Package extra declares the commands that only turnback-full links
// (see internal/fullbin): what they get from the CLI (Host), and the
// names and summaries turnback lists for them and hands to
// turnback-full. It imports none of their libraries.
package extra
