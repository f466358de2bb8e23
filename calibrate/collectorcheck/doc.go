// Package collectorcheck tests that budgetsim's calibrate reads what the
// OpenTelemetry Collector's file exporter writes. It is a module of its
// own, so that the collector's dependencies stay out of budgetsim's
// go.mod: spans made by the OpenTelemetry Go SDK from a known agent are
// handed to the real file exporter (contrib's exporter/fileexporter,
// through the collector's component API), and calibrate must recover the
// agent's parameters from the file it writes.
//
// Run it from this directory: go test ./... . Every collector module
// stays at one release, the one whose pdata budgetsim's go.mod requires
// (contrib v0.165.1 with core v0.165.0 and v1.71.0 for pdata v1.71.0);
// when budgetsim's go.mod changes, run go mod tidy here too.
package collectorcheck
