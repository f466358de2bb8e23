// Package atomicfile writes files so that a reader never sees a partial one:
// data goes to a temporary file in the same directory, which is synced and
// renamed over the destination only when complete. A crash or an interrupt
// leaves the previous file (if any) untouched.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-"+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	return &File{Writer: bufio.NewWriterSize(tmp, 1<<16), tmp: tmp, path: path}, nil
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
// come last and one after another, once no destination is a directory; a
// rename failing after that (a file system gone read-only) can still leave
// the files before it replaced, and no temporary file behind.
type Group struct {
	files []*File
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
	for i, f := range ready {
		if err := f.publish(); err != nil {
			for _, o := range ready[i+1:] {
				os.Remove(o.tmp.Name())
			}
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

// RemoveStale removes the temporary files Create made in dir
// (".NAME.tmp-PID-RANDOM", hidden) that are stale at now: unmodified for
// StaleAfter and, when the name carries the writer's process id, of a
// process no longer running on this machine. Errors are ignored: cleaning
// up is a courtesy, not part of writing.
func RemoveStale(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		i := strings.LastIndex(name, ".tmp-")
		if !strings.HasPrefix(name, ".") || i <= 0 || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < StaleAfter {
			continue
		}
		if pid, _, ok := strings.Cut(name[i+len(".tmp-"):], "-"); ok {
			if n, err := strconv.Atoi(pid); err == nil && n > 0 && alive(n) {
				continue
			}
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
