package scenarios

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// applySet applies one --set override "path=value" to the scenario's YAML
// tree before it is decoded, so overrides are validated exactly like the
// file. The path is dotted: mapping keys, and list items by their name key
// (steps.fetch.timeout) or by index (steps.0.timeout). Missing mapping keys
// are added, intermediate ones as empty mappings (queue.capacity=5 works
// without a queue key); list items are never added. The value is parsed as
// YAML, so "{dist: constant, value: 2ms}" works. Nodes created here carry
// line mark (negative), so that errors about them name the --set flag
// instead of a line.
//
// Every node on the path is copied before it is changed, so an override
// reached through an alias changes that path only, not the anchor's other
// uses.
//
// An override made by Unset removes the key or list item at its path
// instead; the path must exist.
func applySet(root *yaml.Node, set string, mark int) error {
	p, unset := strings.CutPrefix(set, unsetPrefix)
	value, ok := "", unset
	if !unset {
		p, value, ok = strings.Cut(set, "=")
	}
	if !ok || strings.TrimSpace(p) == "" {
		return fmt.Errorf("must be path=value, e.g. workers=12 or steps.fetch.timeout=300ms")
	}
	segs := strings.Split(strings.TrimSpace(p), ".")
	for _, seg := range segs {
		if seg == "" {
			return fmt.Errorf("path %q has an empty part: write keys joined by single dots, e.g. steps.fetch.timeout", strings.TrimSpace(p))
		}
	}
	var val *yaml.Node
	if !unset {
		var v yaml.Node
		dec := yaml.NewDecoder(strings.NewReader(value))
		if err := dec.Decode(&v); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("value %q is not valid YAML: %v", value, strings.TrimPrefix(err.Error(), "yaml: "))
		}
		var extra yaml.Node
		switch err := dec.Decode(&extra); {
		case err == nil:
			return fmt.Errorf("value %q holds more than one YAML document (a \"---\" line): give one value", value)
		case !errors.Is(err, io.EOF):
			return fmt.Errorf("value %q is not valid YAML: %v", value, strings.TrimPrefix(err.Error(), "yaml: "))
		}
		if len(v.Content) == 0 {
			val = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ""}
		} else {
			val = v.Content[0]
		}
		markLines(val, mark)
	}
	// where names the node segs[i] is looked up in.
	where := func(i int) string {
		if i == 0 {
			return "the scenario"
		}
		return strings.Join(segs[:i], ".")
	}
	n := root
	for i, seg := range segs {
		last := i == len(segs)-1
		n = resolve(n)
		switch n.Kind {
		case yaml.MappingNode:
			found := -1
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == seg {
					found = j + 1
				}
			}
			if found < 0 && unset {
				var keys []string
				for j := 0; j+1 < len(n.Content); j += 2 {
					keys = append(keys, n.Content[j].Value)
				}
				return fmt.Errorf("%s: has no key %q to remove%s", where(i), seg, suggest(seg, keys))
			}
			if found < 0 {
				if !last && i == 1 && segs[0] == "tools" {
					// A key of a tool that does not exist would create a
					// tool with that one key: say what is there instead.
					var names []string
					for j := 0; j+1 < len(n.Content); j += 2 {
						names = append(names, n.Content[j].Value)
					}
					return fmt.Errorf("tools: no tool named %q%s (tools: %s); to add one, set it whole: --set 'tools.%s={latency: {dist: exponential, mean: 1s}}'",
						seg, suggest(seg, names), strings.Join(names, ", "), seg)
				}
				if !last {
					// Create intermediate mappings (e.g. --set queue.capacity=5).
					child := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: mark}
					n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: seg, Line: mark}, child)
					n = child
					continue
				}
				n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: seg, Line: mark}, val)
				return nil
			}
			if last && unset {
				n.Content = append(n.Content[:found-1:found-1], n.Content[found+1:]...)
				return nil
			}
			if last {
				n.Content[found] = val
				return nil
			}
			n.Content[found] = copyNode(n.Content[found])
			n = n.Content[found]
		case yaml.SequenceNode:
			idx := -1
			var names []string
			for j, item := range n.Content {
				it := resolve(item)
				if it.Kind != yaml.MappingNode {
					continue
				}
				for k := 0; k+1 < len(it.Content); k += 2 {
					if it.Content[k].Value == "name" {
						names = append(names, it.Content[k+1].Value)
						if it.Content[k+1].Value == seg {
							idx = j
						}
					}
				}
			}
			if idx < 0 {
				if k, err := strconv.Atoi(seg); err == nil && k >= 0 && k < len(n.Content) {
					idx = k
				}
			}
			if idx < 0 {
				return fmt.Errorf("%s: no list item named %q%s; %s", where(i), seg, suggest(seg, names), listItems(names, len(n.Content)))
			}
			if last && unset {
				n.Content = append(n.Content[:idx:idx], n.Content[idx+1:]...)
				return nil
			}
			if last {
				n.Content[idx] = val
				return nil
			}
			n.Content[idx] = copyNode(n.Content[idx])
			n = n.Content[idx]
		default:
			return fmt.Errorf("%s: is a single value, cannot select %q in it", where(i), seg)
		}
	}
	return nil
}

// unsetPrefix marks an override made by Unset. No scenario key starts
// with it, so no "path=value" override is read as one.
const unsetPrefix = "!"

// Unset returns the override that removes the key or list item at path
// (dotted, as in "path=value" overrides): "retry.budget" takes the retry
// budget away, "tools.api.outages.0" the first outage. It goes among the
// overrides passed to Load, Parse or Reparse, in order with the others;
// the path must exist when it is applied.
func Unset(path string) string { return unsetPrefix + path }

// listItems describes what a list path segment may be: an item's name or
// an index.
func listItems(names []string, n int) string {
	if n == 0 {
		return "the list is empty"
	}
	s := fmt.Sprintf("use an index 0 to %d", n-1)
	if len(names) > 0 {
		s = "items: " + strings.Join(names, ", ") + "; or " + s
	}
	return s
}

// copyNode returns a shallow copy of n, or of the node it aliases: a node
// with its own Content slice, whose entries can be replaced without
// changing n.
func copyNode(n *yaml.Node) *yaml.Node {
	c := *resolve(n)
	c.Content = append([]*yaml.Node(nil), c.Content...)
	c.Anchor = ""
	return &c
}

func markLines(n *yaml.Node, mark int) {
	n.Line = mark
	for _, c := range n.Content {
		markLines(c, mark)
	}
}
