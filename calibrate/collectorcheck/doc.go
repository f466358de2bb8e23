// Package collectorcheck tests that budgetsim's calibrate reads what the
// OpenTelemetry Collector's file exporter writes. It is a module of its
// own, so that the collector's dependencies stay out of budgetsim's
// go.mod: spans made by the OpenTelemetry Go SDK from a known agent are
// handed to the real file exporter (contrib's exporter/fileexporter,
// through the collector's component API), and calibrate must recover the
// agent's parameters from the file it writes.
//
// Run it from this directory: go test ./...
package collectorcheck
