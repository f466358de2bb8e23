package outputs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxInputSize bounds each file this package reads: results files are
// megabytes, so a larger one is not budgetsim's output, and reading it
// whole could exhaust memory.
const MaxInputSize = 1 << 30

// Bounded returns r, which reads at most limit bytes: a read past them
// fails with an error that names the file and the limit.
func Bounded(r io.Reader, name string, limit int64) io.Reader {
	return &boundedReader{r: io.LimitReader(r, limit+1), name: name, limit: limit}
}

// boundedReader is Bounded's reader; read counts the bytes read so far.
type boundedReader struct {
	r           io.Reader
	name        string
	limit, read int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read += int64(n)
	if b.read > b.limit {
		return n - int(b.read-b.limit), fmt.Errorf("%s: larger than %d bytes, too large for a budgetsim results file", b.name, b.limit)
	}
	return n, err
}

// ReadFile opens file f of directory dir and parses it with parse, bounded
// by MaxInputSize; found is false when the file does not exist.
func ReadFile[T any](dir string, f *File, parse func(io.Reader, string) (T, error)) (v T, found bool, err error) {
	path := f.Path(dir)
	in, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return v, false, nil
	}
	if err != nil {
		return v, false, err
	}
	defer in.Close()
	v, err = parse(Bounded(in, path, MaxInputSize), path)
	return v, true, err
}
