// Package atomicfile writes files so that a reader never sees a partial one:
// data goes to a temporary file in the same directory, which is synced and
// renamed over the destination only when complete. A crash or an interrupt
// leaves the previous file (if any) untouched.
package atomicfile

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// WriteFile writes data to path atomically with mode 0644.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// File is a buffered file being written; Commit renames it into place and
// Abort discards it. Calling either a second time does nothing.
type File struct {
	*bufio.Writer
	tmp  *os.File
	path string
	done bool
}

// StaleAfter is how long a temporary file must have gone unmodified before
// Create removes it as stale: a writer still at work keeps its file's
// modification time fresh, and renames it within moments of its last write.
const StaleAfter = time.Minute

// Create starts writing path atomically. It first removes stale temporary
// files from path's directory (see RemoveStale): the ones a process killed
// while writing, or interrupted twice, left behind.
func Create(path string) (*File, error) {
	dir := filepath.Dir(path)
	RemoveStale(dir, time.Now())
	var tmp *os.File
	var err error
	for range 100 {
		name := tempName(filepath.Base(path), os.Getpid())
		tmp, err = os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, os.ErrExist) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	return &File{Writer: bufio.NewWriterSize(tmp, 1<<16), tmp: tmp, path: path}, nil
}

// tempInfix marks a temporary file's name: ".NAME" + tempInfix +
// "PID-RANDOM-MARK".
const tempInfix = ".budgetsim-tmp-"

// tempName returns a fresh temporary name for a file named base, written
// by process pid: ".base.budgetsim-tmp-PID-RANDOM-MARK", hidden, where
// RANDOM is 16 random hex digits and MARK the first 16 hex digits of a
// SHA-256 over base, pid and RANDOM (tempMark). RemoveStale removes only
// files whose name has this form and whose MARK checks, so a file that
// budgetsim did not make is never taken for one of its temporaries.
func tempName(base string, pid int) string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	r := hex.EncodeToString(b[:])
	p := strconv.Itoa(pid)
	return "." + base + tempInfix + p + "-" + r + "-" + tempMark(base, p, r)
}

// tempMark is the check digits of a temporary name (see tempName).
func tempMark(base, pid, random string) string {
	h := sha256.Sum256([]byte("budgetsim temporary file\x00" + base + "\x00" + pid + "\x00" + random))
	return hex.EncodeToString(h[:8])
}

// parseTemp reports whether name is a temporary name tempName made, and
// the process id in it.
func parseTemp(name string) (pid int, ok bool) {
	i := strings.LastIndex(name, tempInfix)
	if !strings.HasPrefix(name, ".") || i <= 1 {
		return 0, false
	}
	base := name[1:i]
	parts := strings.Split(name[i+len(tempInfix):], "-")
	if len(parts) != 3 || len(parts[1]) != 16 || len(parts[2]) != 16 {
		return 0, false
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil || pid <= 0 || strconv.Itoa(pid) != parts[0] {
		return 0, false
	}
	if tempMark(base, parts[0], parts[1]) != parts[2] {
		return 0, false
	}
	return pid, true
}

// Commit flushes, syncs and renames the file into place.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	err := f.finish()
	if err == nil {
		err = f.publish()
	}
	return err
}

// finish flushes, syncs and closes the temporary file (everything but the
// rename); on failure it removes it.
func (f *File) finish() error {
	f.done = true
	err := f.Flush()
	if err == nil {
		err = f.tmp.Sync()
	}
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.tmp.Name(), 0o644)
	}
	if err != nil {
		os.Remove(f.tmp.Name())
		return fmt.Errorf("cannot write %s: %w", f.path, err)
	}
	return nil
}

// publish renames the finished temporary file into place.
func (f *File) publish() error {
	if err := os.Rename(f.tmp.Name(), f.path); err != nil {
		os.Remove(f.tmp.Name())
		return fmt.Errorf("cannot write %s: %w", f.path, err)
	}
	return nil
}

// Group writes several files as one output: none is renamed into place
// until all are written and synced, so a failure while writing (a full
// disk, an error in a writer) leaves every previous file as it was, not
// some new and some old. The renames themselves, which need no space,
// come last and one after another, once no destination is a directory.
// Around them each destination directory holds a marker, Publishing,
// naming the files being renamed: a process killed between two renames
// (or a rename failing, on a file system gone read-only) leaves it there,
// and readers that call CheckPublished refuse the directory instead of
// reading new files beside old ones. The marker goes once every rename is
// done, and only then.
type Group struct {
	files []*File
}

// Publishing is the name of the marker a Group keeps in a directory while
// it renames its files into place: one file name a line.
const Publishing = ".budgetsim-publishing"

// afterRename, when set (by tests), is called after each rename of a
// group's commit; an error stops the commit there, as a kill would.
var afterRename func(i int) error

// CheckPublished returns an error when dir holds the marker of a group
// whose files were not all put in place (see Group): the output there may
// mix files of two runs. The error names the files and says to rerun.
func CheckPublished(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, Publishing))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	names := strings.Fields(string(b))
	return fmt.Errorf("%s: the last write of %s there was interrupted while its files were put in place (%s is there): they may mix two runs' results; rerun the command that wrote them", dir, strings.Join(names, ", "), Publishing)
}

// markPublishing adds names to dir's marker, creating it; names already
// there (an earlier group interrupted) stay.
func markPublishing(dir string, names []string) error {
	have := readMarker(dir)
	for _, n := range names {
		if !slices.Contains(have, n) {
			have = append(have, n)
		}
	}
	return writeMarker(dir, have)
}

// unmarkPublishing takes names off dir's marker, removing it once empty.
func unmarkPublishing(dir string, names []string) error {
	have := slices.DeleteFunc(readMarker(dir), func(n string) bool { return slices.Contains(names, n) })
	if len(have) == 0 {
		if err := os.Remove(filepath.Join(dir, Publishing)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return writeMarker(dir, have)
}

func readMarker(dir string) []string {
	b, _ := os.ReadFile(filepath.Join(dir, Publishing))
	return strings.Fields(string(b))
}

func writeMarker(dir string, names []string) error {
	return WriteFile(filepath.Join(dir, Publishing), []byte(strings.Join(names, "\n")+"\n"))
}

// Create starts writing path as part of the group.
func (g *Group) Create(path string) (*File, error) {
	f, err := Create(path)
	if err != nil {
		return nil, err
	}
	g.files = append(g.files, f)
	return f, nil
}

// Commit finishes every file, then renames each into place; if any fails
// to finish, it discards them all and renames none.
func (g *Group) Commit() error {
	var ready []*File
	for i, f := range g.files {
		if f.done {
			continue // committed or aborted on its own
		}
		if err := f.finish(); err != nil {
			for _, o := range g.files[i+1:] {
				o.Abort()
			}
			for _, o := range ready {
				os.Remove(o.tmp.Name())
			}
			g.files = nil
			return err
		}
		ready = append(ready, f)
	}
	g.files = nil
	// A destination that cannot be replaced (a directory) is found before
	// any rename, so the usual failure leaves every old file in place.
	for _, f := range ready {
		if st, err := os.Lstat(f.path); err == nil && st.IsDir() { // a link is replaced, not followed
			for _, o := range ready {
				os.Remove(o.tmp.Name())
			}
			return fmt.Errorf("cannot write %s: is a directory", f.path)
		}
	}
	if len(ready) == 1 {
		return ready[0].publish() // one rename: nothing can be mixed
	}
	// The marker of each destination directory, in a fixed order.
	byDir := map[string][]string{}
	var dirs []string
	for _, f := range ready {
		d := filepath.Dir(f.path)
		if _, ok := byDir[d]; !ok {
			dirs = append(dirs, d)
		}
		byDir[d] = append(byDir[d], filepath.Base(f.path))
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if err := markPublishing(d, byDir[d]); err != nil {
			for _, o := range ready {
				os.Remove(o.tmp.Name())
			}
			return err
		}
	}
	for i, f := range ready {
		err := f.publish()
		if err == nil && afterRename != nil {
			err = afterRename(i)
		}
		if err != nil {
			for _, o := range ready[i+1:] {
				os.Remove(o.tmp.Name())
			}
			return err // the markers stay: the directories mix old and new files
		}
	}
	for _, d := range dirs {
		if err := unmarkPublishing(d, byDir[d]); err != nil {
			return err
		}
	}
	return nil
}

// Abort discards every file of the group not yet committed.
func (g *Group) Abort() {
	for _, f := range g.files {
		f.Abort()
	}
	g.files = nil
}

// Abort discards the temporary file.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}

// RemoveStale removes the temporary files Create made in dir that are
// stale at now: unmodified for StaleAfter, of a process no longer running
// on this machine. It recognises them by their whole name
// (".NAME.budgetsim-tmp-PID-RANDOM-MARK", see tempName) and the MARK in
// it, which only Create computes, and leaves every other file alone,
// whatever its name holds. Errors are ignored: cleaning up is a courtesy,
// not part of writing.
func RemoveStale(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		pid, ok := parseTemp(name)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < StaleAfter || alive(pid) {
			continue
		}
		os.Remove(filepath.Join(dir, name))
	}
}

// alive reports whether process pid runs on this machine (or may: a
// process of another user answers EPERM).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
