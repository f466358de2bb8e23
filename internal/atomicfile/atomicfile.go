// Package atomicfile writes files so that a reader never sees a partial one:
// data goes to a temporary file in the same directory, which is synced and
// renamed over the destination only when complete. A crash or an interrupt
// leaves the previous file (if any) untouched.
package atomicfile

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
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

// Create starts writing path atomically.
func Create(path string) (*File, error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
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
	if err == nil {
		err = os.Rename(f.tmp.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.tmp.Name())
		return fmt.Errorf("cannot write %s: %w", f.path, err)
	}
	return nil
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
