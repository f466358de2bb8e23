// Package generate draws random valid scenarios from the scenario format's
// own table of keys (scenarios.Sections) and checks the invariants every
// simulation must keep on them, so that every key, including one added to
// the table later, is exercised in combination with the others without a
// test written for it.
//
// Draw walks the table from the root section: each required key is drawn,
// each optional key with a chance, and each value from the key's kind,
// range, words and example. What the table does not say (which tool a
// step calls, which earlier step an input_from follows, how large a
// scenario may be) is in one place, knowledge.go. The loader is the judge
// of validity: while scenarios.Parse refuses the text, the key its first
// errors name is drawn again, dropped, or, when missing, drawn, so that
// invalid combinations are repaired rather than excluded by hand.
//
// Check simulates a drawn scenario and reports the first invariant it
// breaks (see Check); Minimize shrinks a failing scenario to the fewest
// keys that still fail. docs/validation.md says how the tests, the fuzz
// target and the soak use them.
package generate
