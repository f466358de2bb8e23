package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"

	"go.yaml.in/yaml/v3"
)

// FormatVersion is the version of the scenario format this build reads:
// the keys, their units and their meaning. Every output records it, so a
// result can be traced to the rules its scenario was read by.
const FormatVersion = 1

// Effective returns the scenario's YAML text after its overrides: what was
// simulated. With no overrides it is Source, byte for byte; with overrides
// it is the document with them applied, re-encoded (two-space indent,
// comments kept), so that a --set workers=19 reads "workers: 19" in it.
func (s *Scenario) Effective() []byte {
	if s.effective == nil {
		return s.Source
	}
	return s.effective
}

// SHA256 identifies the effective text: the hex SHA-256 of Effective().
// The same file with the same overrides has the same one; with no
// overrides it is the file's (what sha256sum prints).
func (s *Scenario) SHA256() string {
	h := sha256.Sum256(s.Effective())
	return hex.EncodeToString(h[:])
}

// effectiveText re-encodes doc (with sets applied) when there are sets;
// nil means src itself.
func effectiveText(src []byte, doc *yaml.Node, sets []string) ([]byte, error) {
	if len(sets) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
