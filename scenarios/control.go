package scenarios

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// ControlChar returns the first control character in s that a terminal
// would act on rather than print (C0 other than tab, line feed and
// carriage return; DEL; C1), and whether there is one. With names also
// tab, line feed and carriage return count: a name is on one line. Names
// and values are printed in tables, warnings and errors, where an escape
// sequence could retitle or clear the user's terminal, so the loader
// refuses them; invalid UTF-8 counts too, as U+FFFD.
func ControlChar(s string, name bool) (rune, bool) {
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return r, true
			}
		case r == '\t' || r == '\n' || r == '\r':
			if name {
				return r, true
			}
		case r < 0x20 || r == 0x7f || 0x80 <= r && r <= 0x9f:
			return r, true
		}
	}
	return 0, false
}

// checkControl refuses control characters in the document's keys (all
// names: of keys, tools, tenants, classes, dimensions) and values (any
// control but tab and line breaks; none at all in a name: value), each
// reported at its line with its field path. It reports whether there were
// none: with one, the loader stops, so that no other message repeats the
// character.
func (d *decoder) checkControl(root *yaml.Node) bool {
	clean := len(d.errs)
	d.controlWalk(root, "", false)
	return len(d.errs) == clean
}

func (d *decoder) controlWalk(n *yaml.Node, path string, name bool) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			d.controlWalk(c, path, false)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			d.controlWalk(c, fmt.Sprintf("%s[%d]", path, i), name)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				d.controlWalk(k, path, true)
				d.controlWalk(v, path, false)
				continue
			}
			if r, bad := ControlChar(k.Value, true); bad {
				d.errorf(k, join(path, strconv.Quote(k.Value)), "key contains the control character %U: names are printed in tables and terminals; use letters, digits, '-' and '_'", r)
				continue
			}
			d.controlWalk(v, join(path, k.Value), k.Value == "name")
		}
	case yaml.ScalarNode:
		if r, bad := ControlChar(n.Value, name); bad {
			what := "value"
			if name {
				what = "name"
			}
			d.errorf(n, path, "%s %s contains the control character %U: names and values are printed in tables and terminals, which would act on it; remove it", what, strconv.Quote(n.Value), r)
		}
	}
}
