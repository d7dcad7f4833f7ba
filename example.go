// Package untether holds the files the command builds into its binary: the
// annotated example configuration, which untether init fills in, so that a
// config written by init explains every key the way untether.toml.example
// does and the two never drift apart.
package untether

import _ "embed"

// ExampleConfig is untether.toml.example.
//
//go:embed untether.toml.example
var ExampleConfig string
