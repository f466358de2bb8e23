//go:build tools

// Package deps pins the project's third-party modules while the packages
// that use them are being written, so that go mod tidy keeps them.
package deps

import (
	_ "github.com/olekukonko/tablewriter"
	_ "go.yaml.in/yaml/v3"
	_ "gonum.org/v1/gonum/stat/distuv"
	_ "gonum.org/v1/plot"
	_ "pgregory.net/rapid"
)
