// Package readme reads the commands that the project's Markdown documents
// tell a user to type, and the output they say to expect, so that tests can
// run them and the documents cannot go stale.
//
// A command is a line "go run ./cmd/PROGRAM ARGS…" inside a fenced block
// (```sh). When a block holds exactly one command and the next thing in the
// document is a ```text block, that block is the output to expect: each of
// its lines, in order, must be a line of what the command prints. A line
// "…" stands for lines left out; it matches nothing by itself.
package readme

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// Command is one command of a document.
type Command struct {
	// File and Line locate the command in its document (Line is 1-based).
	File string
	Line int
	// Program is the command's name under cmd/: "simulate", "plot" or
	// "report".
	Program string
	// Args are the arguments after the program, split as a shell would
	// (single quotes group; an unquoted # starts a comment).
	Args []string
	// Want is the output to expect, "…" lines removed; nil when the
	// document shows none.
	Want []string
}

// String returns the command as a user types it.
func (c Command) String() string {
	return "go run ./cmd/" + c.Program + " " + strings.Join(c.Args, " ")
}

const prefix = "go run ./cmd/"

// Commands returns the commands of the Markdown document at path, in the
// order written.
func Commands(path string) ([]Command, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		cmds    []Command
		fence   string // the open block's info string; "" outside blocks
		inBlock bool
		block   []int // indexes into cmds of the open block's commands
		single  = -1  // index of the last closed block's only command, until something else follows
		want    *[]string
		n       int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			if !inBlock {
				inBlock, fence, block = true, strings.TrimPrefix(trimmed, "```"), nil
				if fence == "text" && single >= 0 {
					cmds[single].Want = []string{}
					want = &cmds[single].Want
				}
				single = -1
				continue
			}
			inBlock, want = false, nil
			if fence == "sh" && len(block) == 1 {
				single = block[0]
			}
			continue
		}
		if !inBlock {
			if trimmed != "" {
				single = -1
			}
			continue
		}
		if want != nil {
			if trimmed != "…" {
				*want = append(*want, strings.TrimRight(line, " "))
			}
			continue
		}
		if fence != "sh" {
			continue
		}
		rest, ok := strings.CutPrefix(trimmed, prefix)
		if !ok {
			continue
		}
		prog, args, _ := strings.Cut(rest, " ")
		fields, err := Fields(args)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		block = append(block, len(cmds))
		cmds = append(cmds, Command{File: path, Line: n, Program: prog, Args: fields})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if inBlock {
		return nil, fmt.Errorf("%s: a fenced block is not closed", path)
	}
	return cmds, nil
}

// Fields splits a command line into arguments as a POSIX shell would for
// the commands the documents use: single quotes group and are removed, and
// an unquoted # at the start of a word starts a comment.
func Fields(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inQuote, have := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			inQuote = !inQuote
			have = true
		case (r == ' ' || r == '\t') && !inQuote:
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		case r == '#' && !inQuote && !have:
			return out, nil
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if inQuote {
		return nil, fmt.Errorf("unclosed quote in %q", s)
	}
	if have {
		out = append(out, cur.String())
	}
	return out, nil
}

// Check reports whether want's lines appear in got's lines in order
// (trailing spaces ignored). Its error names the first line not found.
func Check(want []string, got string) error {
	lines := strings.Split(got, "\n")
	i := 0
	for _, w := range want {
		for i < len(lines) && strings.TrimRight(lines[i], " ") != w {
			i++
		}
		if i == len(lines) {
			return fmt.Errorf("expected line not printed (or out of order):\n%s", w)
		}
		i++
	}
	return nil
}
