package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// UnmarshalJSON reads {"key": "value", …} in order, as MarshalJSON writes
// it: sweep.json reads back into the PointFiles it was written from.
func (v *Values) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("point: want an object of key: value, got %s", b)
	}
	out := Values{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		var kv KeyValue
		kv.Key = tok.(string) // an object's keys are strings
		if err := dec.Decode(&kv.Value); err != nil {
			return fmt.Errorf("point: %s: %w", kv.Key, err)
		}
		out = append(out, kv)
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	*v = out
	return nil
}
