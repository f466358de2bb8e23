// Package comparison renders the results plan/compare returns: the text
// tables compare prints (each variant's figures, the paired differences
// from the first variant, classes of work, model-API limits, adaptive
// concurrency), the verdicts in words, and the paired-difference columns
// and signed intervals the report page shows too. plan/compare computes;
// this package only formats, through internal/render.
package comparison
