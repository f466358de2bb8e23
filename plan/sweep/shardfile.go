package sweep

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"strconv"
)

// Format names the version of the record (shard file) format.
const Format = "budgetsim-sweep-record/2"

// MaxShardLineBytes bounds one line of a shard file: its header, or one
// point's results in that shard (about 40 KB per replication), 256 MiB.
// Reading a whole line (ReadRecord) allocates about 2.75 times its size
// (the line, copied once from the reader's chunks, and its decoded
// results), and writing one (sweep --shard) holds the point's results and
// the encoder's buffer: both stay well within docs/limits.md's 4 GB. A
// merge (MergeShards) never holds a line: it streams each and reads one
// replication at a time. A point with more results than fit (more than
// about 6 000 replications of 20 000 runs in one shard) needs more
// shards, which split a point's replications between them (except under
// the stop rule).
const MaxShardLineBytes = 256 << 20

// The shard file format. Every line ends in "\n":
//
//	{"format":…,"spec":…,"scenario_sha256":…,"build":…,"data_sha256":{…},"partial":…,"crc32c":"…"}
//	{"index":0,"key":"workers=5","warmup":…,"planned":…,"results":[…],"crc32c":"…"}
//	… one line per point, by increasing index …
//	{"end":N,"sha256":"…"}
//
// Each header and point line is sealed: its "crc32c" member is the CRC-32C
// (Castagnoli) of the line's exact bytes without that member (the JSON
// object closed right after the member before it), so a damaged line is
// refused before it is decoded; a CRC detects every error of an odd number
// of bits, and every burst of up to 32 bits, at memory speed. A point line
// names its index and its key (the point's label), which must agree with
// the grid of the header's spec: results cannot move to another point
// unnoticed. The last line counts the points (N) and holds the SHA-256 of
// every byte before it, so any other damage, and a dropped, repeated or
// reordered line, is refused; nothing may follow it.

// sealSuffix is what comes before a line's hex checksum.
const sealSuffix = `,"crc32c":"`

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// unseal checks a sealed JSON object (without its newline) and returns
// the object without its "crc32c" member, in line's own bytes (it closes
// the object where the member began).
func unseal(line []byte) ([]byte, error) {
	n := len(line) - 2 - 8 - len(sealSuffix)
	if n < 1 || !bytes.HasSuffix(line, []byte(`"}`)) || !bytes.Equal(line[n:n+len(sealSuffix)], []byte(sealSuffix)) {
		return nil, errors.New(`does not end in its "crc32c" checksum`)
	}
	got := line[n+len(sealSuffix) : len(line)-2]
	sum := crc32.Update(crc32.Checksum(line[:n], castagnoli), castagnoli, []byte{'}'})
	if want := hex.EncodeToString(binary.BigEndian.AppendUint32(nil, sum)); string(got) != want {
		return nil, fmt.Errorf("checksum mismatch (the line says %s, its bytes give %s): the file is damaged", got, want)
	}
	line[n] = '}'
	return line[:n+1], nil
}

// headerLine is a shard file's first line.
type headerLine struct {
	Format         string            `json:"format"`
	Spec           Spec              `json:"spec"`
	ScenarioSHA256 string            `json:"scenario_sha256"`
	Build          string            `json:"build"`
	Data           map[string]string `json:"data_sha256,omitempty"`
	Partial        bool              `json:"partial"`
}

// pointLine is one point of a shard file.
type pointLine struct {
	Index   int       `json:"index"`
	Key     string    `json:"key"`
	Warmup  Warmup    `json:"warmup"`
	Planned int       `json:"planned"`
	Note    string    `json:"note,omitempty"`
	Results []Replica `json:"results"`
}

// trailer returns a shard file's last line.
func trailer(points int, sum []byte) []byte {
	return []byte(`{"end":` + strconv.Itoa(points) + `,"sha256":"` + hex.EncodeToString(sum) + "\"}\n")
}

// WriteTo writes the record as a shard file (see the format above):
// compact JSON, one sealed line per point, and a trailer.
func (r *Record) WriteTo(w io.Writer) (int64, error) {
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(w, h)}
	if err := writeLine(cw, headerLine{r.Format, r.Spec, r.ScenarioSHA256, r.Build, r.Data, r.Partial}); err != nil {
		return cw.n, err
	}
	grid := r.Spec.Points()
	for _, p := range r.Points {
		if err := writePoint(cw, &r.Spec, grid, p); err != nil {
			return cw.n, err
		}
	}
	k, err := w.Write(trailer(len(r.Points), h.Sum(nil)))
	return cw.n + int64(k), err
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	k, err := c.w.Write(b)
	c.n += int64(k)
	return k, err
}

// writeLine writes v as one sealed line: the bytes json.Marshal would
// give, sealed as seal does, written in pieces from the encoder's buffer
// rather than copied into new slices (a line may be hundreds of
// megabytes).
func writeLine(w io.Writer, v any) error {
	ls := &lineSink{w: w}
	if err := json.NewEncoder(ls).Encode(v); err != nil {
		if ls.err != nil {
			return ls.err
		}
		return err
	}
	return nil
}

// lineSink seals the one JSON object a json.Encoder writes to it (the
// object and its newline, in one Write) and writes it on to w.
type lineSink struct {
	w   io.Writer
	err error
}

func (ls *lineSink) Write(p []byte) (int, error) {
	obj := p[:len(p)-1] // without the Encoder's newline
	if n := len(obj) + len(sealSuffix) + 8 + 1; n > MaxShardLineBytes {
		ls.err = fmt.Errorf("a line of %d bytes is more than a shard file holds (%d): use more shards", n, MaxShardLineBytes)
		return 0, ls.err
	}
	sum := crc32.Checksum(obj, castagnoli)
	tail := append([]byte(sealSuffix), hex.EncodeToString(binary.BigEndian.AppendUint32(nil, sum))...)
	tail = append(tail, '"', '}', '\n')
	if _, err := ls.w.Write(obj[:len(obj)-1]); err != nil {
		ls.err = err
		return 0, err
	}
	if _, err := ls.w.Write(tail); err != nil {
		ls.err = err
		return 0, err
	}
	return len(p), nil
}

// writePoint writes point p of the grid as one sealed line.
func writePoint(w io.Writer, spec *Spec, grid []Point, p *RawPoint) error {
	if p.Index < 0 || p.Index >= len(grid) {
		return fmt.Errorf("point %d: outside the grid of %d points", p.Index, len(grid))
	}
	return writeLine(w, pointLine{p.Index, grid[p.Index].Label(spec.Axes), p.Warmup, p.Planned, p.Note, p.Results})
}

// ShardWriter writes a shard file while its sweep runs: Add takes each
// point as Run completes it (Options.PointDone) and spills its line to a
// temporary file, so that memory holds the points in progress, not the
// shard's results; Finish writes the file, byte for byte what
// Record.WriteTo writes for the whole record.
type ShardWriter struct {
	spec  Spec
	grid  []Point
	spill *os.File
	bw    *bufio.Writer
	added map[int]bool
	prev  int
}

// NewShardWriter starts a shard of spec, spilling to a hidden temporary
// file in dir (the shard file's directory).
func NewShardWriter(dir string, spec Spec) (*ShardWriter, error) {
	f, err := os.CreateTemp(dir, "."+ShardFile(spec.Shard, spec.Shards)+".points-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name()) // unlinked: it goes away with the process, however it ends
	return &ShardWriter{spec: spec, grid: spec.Points(), spill: f, bw: bufio.NewWriterSize(f, 1<<16), added: map[int]bool{}, prev: -1}, nil
}

// Add writes point p, whose index must be greater than every point added
// before, and drops its results (p.Results = nil).
func (w *ShardWriter) Add(p *RawPoint) error {
	if p.Index <= w.prev {
		return fmt.Errorf("sweep: ShardWriter.Add: point %d after point %d", p.Index, w.prev)
	}
	if err := writePoint(w.bw, &w.spec, w.grid, p); err != nil {
		return err
	}
	w.prev = p.Index
	w.added[p.Index] = true
	p.Results = nil
	return nil
}

// Finish writes the shard file of rec (Run's record, whose points Add took
// are empty now) to out: the header, the points added, the points of rec
// not added (which must come after them), and the trailer.
func (w *ShardWriter) Finish(out io.Writer, rec *Record) error {
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(out, h)}
	if err := writeLine(cw, headerLine{rec.Format, rec.Spec, rec.ScenarioSHA256, rec.Build, rec.Data, rec.Partial}); err != nil {
		return err
	}
	if err := w.bw.Flush(); err != nil {
		return err
	}
	if _, err := w.spill.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.Copy(cw, w.spill); err != nil {
		return err
	}
	n := len(w.added)
	for _, p := range rec.Points {
		if w.added[p.Index] {
			continue
		}
		if p.Index <= w.prev {
			return fmt.Errorf("sweep: ShardWriter.Finish: point %d was not added, but point %d was", p.Index, w.prev)
		}
		if err := writePoint(cw, &w.spec, w.grid, p); err != nil {
			return err
		}
		n++
	}
	_, err := out.Write(trailer(n, h.Sum(nil)))
	return err
}

// Close releases the spill file.
func (w *ShardWriter) Close() error { return w.spill.Close() }

// ShardReader reads a shard file point by point, checking each line as it
// comes: memory holds one line (at most MaxShardLineBytes) and the point
// decoded from it.
type ShardReader struct {
	// Header is the shard's record without its points.
	Header *Record

	name string
	r    *bufio.Reader
	ra   io.ReaderAt // the file read at random, for MergeShards; nil if r is not one
	pos  int64       // bytes of the file read through r
	h    hash.Hash
	line int
	n    int // points read
	prev int // index of the last point read, -1 before the first
	grid []Point
	max  int
	err  error // sticky: the first error, or io.EOF once verified
}

// NewShardReader reads and checks the header of the shard file r, read
// from its start; name labels errors. MergeShards needs r to be an
// io.ReaderAt too (an *os.File, a *bytes.Reader): it reads each
// replication's result again, at its place in the file, when it pools it.
func NewShardReader(name string, r io.Reader) (*ShardReader, error) {
	return newShardReader(name, r, MaxShardLineBytes)
}

func newShardReader(name string, r io.Reader, maxLine int) (*ShardReader, error) {
	s := &ShardReader{name: name, r: bufio.NewReaderSize(r, 64<<10), h: sha256.New(), prev: -1, max: maxLine}
	s.ra, _ = r.(io.ReaderAt)
	b, err := s.readLine()
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(b, []byte(`{"format":"`+Format+`"`)) {
		if f, ok := bytes.CutPrefix(b, []byte(`{"format":"`)); ok {
			if i := bytes.IndexByte(f, '"'); i >= 0 && i < 100 {
				return nil, fmt.Errorf("%s: format %q, this build reads %q: rerun the shards with this build", name, f[:i], Format)
			}
		}
		return nil, s.errorf("not a sweep shard file (%s)", Format)
	}
	s.h.Write(b) // before unseal, which rewrites the line's end
	s.h.Write([]byte{'\n'})
	body, err := unseal(b)
	if err != nil {
		return nil, s.errorf("header %v", err)
	}
	var hd headerLine
	if err := strictUnmarshal(body, &hd); err != nil {
		return nil, s.errorf("header: %v", err)
	}
	if err := hd.Spec.Validate(); err != nil {
		return nil, s.errorf("spec: %v", err)
	}
	s.Header = &Record{Format: hd.Format, Spec: hd.Spec, ScenarioSHA256: hd.ScenarioSHA256, Build: hd.Build, Data: hd.Data, Partial: hd.Partial}
	s.grid = hd.Spec.Points()
	return s, nil
}

func (s *ShardReader) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: "+format, append([]any{s.name, s.line}, args...)...)
}

// strictUnmarshal decodes one JSON value that must fill v exactly.
func strictUnmarshal(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("more than one JSON value")
	}
	return nil
}

// unmarshalPoint decodes a point line's object into p, refusing members
// pointLine does not have, as strictUnmarshal does, without the copy of
// the line a json.Decoder buffers.
func unmarshalPoint(b []byte, p *pointLine) error {
	if err := json.Unmarshal(b, p); err != nil {
		return err
	}
	return onlyMembers(b, "index", "key", "warmup", "planned", "note", "results")
}

// onlyMembers returns an error naming the first member of the JSON object
// b (valid JSON: json.Unmarshal has checked it) whose name is not one of
// names. It reads b in place, skipping each member's value.
func onlyMembers(b []byte, names ...string) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errors.New("not a JSON object")
	}
	i++
	for {
		i = skipSpace(b, i)
		if i < len(b) && b[i] == '}' {
			return nil
		}
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
		end := skipString(b, i)
		var name string
		if err := json.Unmarshal(b[i:end], &name); err != nil {
			return err
		}
		if !slices.Contains(names, name) {
			return fmt.Errorf("json: unknown field %q", name)
		}
		i = skipSpace(b, end)
		i = skipValue(b, skipSpace(b, i+1)) // past ':' and the value
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the JSON string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index after the JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = skipString(b, i)
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the enclosing object's end
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}

// readLine returns the next line, without its "\n". A line longer than s.max, or one the file ends in the
// middle of, is an error. A long line is kept as the reader's chunks,
// then copied once into a slice of its exact length: about twice the line
// allocated, where growing one slice as it came allocated five times.
func (s *ShardReader) readLine() ([]byte, error) {
	s.line++
	var chunks [][]byte
	total := 0
	for {
		chunk, err := s.r.ReadSlice('\n')
		if total+len(chunk) > s.max+1 {
			return nil, s.errorf("line longer than %d bytes (the limit of a shard file's line, MaxShardLineBytes): use more shards", s.max)
		}
		if err == nil {
			s.pos += int64(total + len(chunk))
			if chunks == nil {
				return chunk[:len(chunk)-1], nil // valid until the next read: used before it
			}
			b := make([]byte, 0, total+len(chunk))
			for _, c := range chunks {
				b = append(b, c...)
			}
			b = append(b, chunk...)
			return b[:len(b)-1], nil
		}
		chunks = append(chunks, bytes.Clone(chunk))
		total += len(chunk)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && total == 0:
			return nil, s.errorf("the file ends without its last line (%q): it was cut short", `{"end":…}`)
		case errors.Is(err, io.EOF):
			return nil, s.errorf("the file ends in the middle of a line: it was cut short")
		default:
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
}

// Next returns the next point, or io.EOF after the last one once the
// trailer is checked (the count, the checksum of the file, and nothing
// after it). Points come by increasing Index; each is checked against the
// header's spec: its key, that this shard runs its replications, and that
// they increase.
func (s *ShardReader) Next() (*RawPoint, error) {
	if s.err != nil {
		return nil, s.err
	}
	rp, err := s.next()
	if err != nil {
		s.err = err
	}
	return rp, err
}

func (s *ShardReader) next() (*RawPoint, error) {
	sum := s.h.Sum(nil) // of every line before this one
	b, err := s.readLine()
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(b, []byte(`{"end":`)) {
		if want := trailer(s.n, sum); !bytes.Equal(append(b, '\n'), want) {
			return nil, s.errorf("the file's checksum or point count (%.60s…) does not match its %d points: the file is damaged", b, s.n)
		}
		if _, err := s.r.ReadByte(); err != io.EOF {
			if err == nil {
				return nil, s.errorf("bytes after the last line: the file is damaged or two files were joined")
			}
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		return nil, io.EOF
	}
	s.h.Write(b) // before unseal, which rewrites the line's end
	s.h.Write([]byte{'\n'})
	body, err := unseal(b)
	if err != nil {
		return nil, s.errorf("%v", err)
	}
	var pl pointLine
	if err := unmarshalPoint(body, &pl); err != nil {
		return nil, s.errorf("point: %v", err)
	}
	reps := make([]int, len(pl.Results))
	for i, r := range pl.Results {
		reps[i] = r.Replication
	}
	if err := s.check(&pl, reps); err != nil {
		return nil, s.errorf("point %d: %v", pl.Index, err)
	}
	s.n++
	s.prev = pl.Index
	if pl.Results == nil {
		pl.Results = []Replica{}
	}
	return &RawPoint{Index: pl.Index, Warmup: pl.Warmup, Planned: pl.Planned, Note: pl.Note, Results: pl.Results}, nil
}

// check verifies that point p, whose results are replications reps (in
// the line's order), belongs where the line puts it.
func (s *ShardReader) check(p *pointLine, reps []int) error {
	spec := &s.Header.Spec
	if p.Index <= s.prev || p.Index >= len(s.grid) {
		return fmt.Errorf("index out of order or outside the grid of %d points (the previous point is %d)", len(s.grid), s.prev)
	}
	if want := s.grid[p.Index].Label(spec.Axes); p.Key != want {
		return fmt.Errorf("key %q, but point %d of the grid is %q", p.Key, p.Index, want)
	}
	limit := spec.Replications
	if spec.RelError > 0 {
		limit = spec.MaxReplications
		if p.Index%spec.Shards != spec.Shard {
			return fmt.Errorf("belongs to shard %d of %d, not %d", p.Index%spec.Shards, spec.Shards, spec.Shard)
		}
	}
	if p.Planned < 0 || p.Planned > limit || spec.RelError == 0 && p.Planned != spec.Replications {
		return fmt.Errorf("planned %d replications, outside what the spec allows", p.Planned)
	}
	prev := -1
	for _, r := range reps {
		switch {
		case r <= prev || r >= limit:
			return fmt.Errorf("replication %d out of order or outside [0, %d)", r, limit)
		case spec.RelError == 0 && spec.owner(unit{p.Index, r}) != spec.Shard:
			return fmt.Errorf("replication %d belongs to shard %d of %d, not %d", r, spec.owner(unit{p.Index, r}), spec.Shards, spec.Shard)
		}
		prev = r
	}
	return nil
}

// ReadRecord reads a whole shard file written by WriteTo; name labels
// errors. Memory holds every point of the file: MergeShards merges files
// point by point instead.
func ReadRecord(name string, r io.Reader) (*Record, error) {
	s, err := NewShardReader(name, r)
	if err != nil {
		return nil, err
	}
	rec := s.Header
	for {
		p, err := s.Next()
		if errors.Is(err, io.EOF) {
			return rec, nil
		}
		if err != nil {
			return nil, err
		}
		rec.Points = append(rec.Points, p)
	}
}
