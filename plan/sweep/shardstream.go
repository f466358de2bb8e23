package sweep

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// How MergeShards reads a shard file without holding a point's line.
//
// A point line is read twice. The first pass streams the line through a
// JSON tokenizer, a replication at a time: it checks the line's CRC-32C
// and the file's SHA-256 as ShardReader.Next does, checks the point
// against the header's spec, and keeps, for each replication, only where
// its object lies in the file and the CRC-32C of its bytes. Once every
// shard's piece of a point has checked out, the second pass reads the
// replications again at their places, in replication order across the
// shards, each checked against its CRC-32C before it is decoded: memory
// holds one replication's result, whatever the number of shards or the
// length of their lines.

// sealLen is the length of a sealed line's last member and the object's
// end: `,"crc32c":"` + 8 hex digits + `"}`.
const sealLen = len(sealSuffix) + 8 + 2

// repLoc is where one replication of a point line lies in its file.
type repLoc struct {
	rep int    // its replication number
	off int64  // the offset of its JSON object in the file
	n   int    // the object's length in bytes
	crc uint32 // the CRC-32C (Castagnoli) of those bytes
}

// piece is one shard's part of a point, as the first pass found it.
type piece struct {
	shard *ShardReader
	pl    pointLine // without Results
	locs  []repLoc  // by increasing replication
}

// lineStream reads the current line of its ShardReader and nothing after
// it, feeding the file's SHA-256 and the line's CRC-32C as it goes.
type lineStream struct {
	s    *ShardReader
	n    int    // bytes of the line read, its "\n" included
	done bool   // the "\n" was read
	err  error  // sticky
	crc  uint32 // of the line's bytes before tail
	in   int    // bytes in crc
	tail []byte // the line's last bytes not yet in crc: at most sealLen
}

func (l *lineStream) Read(p []byte) (int, error) {
	switch {
	case l.err != nil:
		return 0, l.err
	case l.done:
		return 0, io.EOF
	case len(p) == 0:
		return 0, nil
	}
	r := l.s.r
	if r.Buffered() == 0 {
		if _, err := r.Peek(1); err != nil {
			if errors.Is(err, io.EOF) {
				l.err = l.s.errorf("the file ends in the middle of a line: it was cut short")
			} else {
				l.err = fmt.Errorf("%s: %w", l.s.name, err)
			}
			return 0, l.err
		}
	}
	buf, _ := r.Peek(min(r.Buffered(), len(p)))
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		buf = buf[:i+1]
		l.done = true
	}
	if l.n+len(buf) > l.s.max+1 {
		l.err = l.s.errorf("line longer than %d bytes (the limit of a shard file's line, MaxShardLineBytes): use more shards", l.s.max)
		return 0, l.err
	}
	k := copy(p, buf)
	r.Discard(k)
	l.n += k
	l.s.pos += int64(k)
	l.s.h.Write(p[:k])
	body := p[:k]
	if l.done {
		body = body[:k-1]
	}
	l.feed(body)
	return k, nil
}

// feed adds b to the line's bytes, holding back the last sealLen.
func (l *lineStream) feed(b []byte) {
	all := len(l.tail) + len(b)
	if all <= sealLen {
		l.tail = append(l.tail, b...)
		return
	}
	out := all - sealLen // bytes that leave the hold
	l.in += out
	if out <= len(l.tail) {
		l.crc = crc32.Update(l.crc, castagnoli, l.tail[:out])
		l.tail = append(l.tail[:copy(l.tail, l.tail[out:])], b...)
		return
	}
	k := out - len(l.tail)
	l.crc = crc32.Update(crc32.Update(l.crc, castagnoli, l.tail), castagnoli, b[:k])
	l.tail = append(l.tail[:0], b[k:]...)
}

// drain reads the rest of the line.
func (l *lineStream) drain() {
	var buf [4096]byte
	for {
		if _, err := l.Read(buf[:]); err != nil {
			return
		}
	}
}

// unseal checks the whole line's checksum, as unseal does for a line in
// hand.
func (l *lineStream) unseal() error {
	t := l.tail
	if l.in < 1 || len(t) != sealLen || !bytes.HasPrefix(t, []byte(sealSuffix)) || !bytes.HasSuffix(t, []byte(`"}`)) {
		return errors.New(`does not end in its "crc32c" checksum`)
	}
	got := t[len(sealSuffix) : len(t)-2]
	sum := crc32.Update(l.crc, castagnoli, []byte{'}'})
	if want := hex.EncodeToString(binary.BigEndian.AppendUint32(nil, sum)); string(got) != want {
		return fmt.Errorf("checksum mismatch (the line says %s, its bytes give %s): the file is damaged", got, want)
	}
	return nil
}

// nextPiece returns the next point's piece, or io.EOF after the last one
// once the trailer is checked, as Next does, without decoding its
// results.
func (s *ShardReader) nextPiece() (*piece, error) {
	if s.err != nil {
		return nil, s.err
	}
	p, err := s.scanPiece()
	if err != nil {
		s.err = err
	}
	return p, err
}

func (s *ShardReader) scanPiece() (*piece, error) {
	end := []byte(`{"end":`)
	if head, _ := s.r.Peek(len(end)); len(head) == 0 || bytes.HasPrefix(head, end) {
		// The trailer, or the file's end: Next checks them.
		if rp, err := s.next(); err != nil || rp == nil {
			return nil, err
		}
		return nil, s.errorf("a point where the last line was expected")
	}
	s.line++
	ls := &lineStream{s: s, tail: make([]byte, 0, sealLen)}
	start := s.pos
	dec := json.NewDecoder(ls)
	dec.DisallowUnknownFields()
	p := &piece{shard: s}
	perr := scanPointLine(dec, start, p)
	ls.drain() // the checksum is of the whole line, whatever the tokenizer found
	if ls.err != nil && !errors.Is(ls.err, io.EOF) {
		return nil, ls.err
	}
	if err := ls.unseal(); err != nil {
		return nil, s.errorf("%v", err)
	}
	if perr != nil {
		return nil, s.errorf("point: %v", perr)
	}
	reps := make([]int, len(p.locs))
	for i, l := range p.locs {
		reps[i] = l.rep
	}
	if err := s.check(&p.pl, reps); err != nil {
		return nil, s.errorf("point %d: %v", p.pl.Index, err)
	}
	s.n++
	s.prev = p.pl.Index
	return p, nil
}

// scanPointLine reads a point line's object from dec, its members in the
// order writePoint writes them, into p: the point without its results,
// and where each result lies (the line starts at offset base of the file).
func scanPointLine(dec *json.Decoder, base int64, p *piece) error {
	delim := func(want json.Delim) error {
		t, err := dec.Token()
		if err == nil && t != want {
			err = fmt.Errorf("%v where %v belongs", t, want)
		}
		return err
	}
	member := func(name string, v any) error {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if t != name {
			return fmt.Errorf("member %v where %q belongs", t, name)
		}
		return dec.Decode(v)
	}
	pl := &p.pl
	if err := delim('{'); err != nil {
		return err
	}
	if err := member("index", &pl.Index); err != nil {
		return err
	}
	if err := member("key", &pl.Key); err != nil {
		return err
	}
	if err := member("warmup", &pl.Warmup); err != nil {
		return err
	}
	if err := member("planned", &pl.Planned); err != nil {
		return err
	}
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t == "note" {
		if err := dec.Decode(&pl.Note); err != nil {
			return err
		}
		if t, err = dec.Token(); err != nil {
			return err
		}
	}
	if t != "results" {
		return fmt.Errorf("member %v where \"results\" belongs", t)
	}
	switch t, err := dec.Token(); {
	case err != nil:
		return err
	case t == nil: // null: no results
	case t == json.Delim('['):
		for dec.More() {
			var rs replicaScan
			if err := dec.Decode(&rs); err != nil {
				return err
			}
			p.locs = append(p.locs, repLoc{rep: rs.rep, off: base + dec.InputOffset() - int64(rs.n), n: rs.n, crc: rs.crc})
		}
		if err := delim(']'); err != nil {
			return err
		}
	default:
		return fmt.Errorf("results: %v where an array belongs", t)
	}
	var sum string
	if err := member("crc32c", &sum); err != nil {
		return err
	}
	if err := delim('}'); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more than one JSON value")
	}
	return nil
}

// replicaScan is what the first pass keeps of a Replica's JSON object:
// its replication, its length and its CRC-32C.
type replicaScan struct {
	rep, n int
	crc    uint32
}

// UnmarshalJSON reads the object {"replication": N, "result": "…"}
// without decoding its result.
func (r *replicaScan) UnmarshalJSON(b []byte) error {
	if err := onlyMembers(b, "replication", "result"); err != nil {
		return err
	}
	var v struct {
		Replication *int      `json:"replication"`
		Result      rawString `json:"result"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if v.Replication == nil {
		return errors.New("a result without its replication")
	}
	r.rep, r.n, r.crc = *v.Replication, len(b), crc32.Checksum(b, castagnoli)
	return nil
}

// rawString accepts a JSON string (or null) without decoding it.
type rawString struct{}

// UnmarshalJSON checks that b is a string or null.
func (rawString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && (b[0] == '"' || string(b) == "null") {
		return nil
	}
	return errors.New("a result that is not a string")
}

// readReplica reads the replication at loc again, checks its bytes
// against the CRC-32C the first pass took, and decodes it.
func (s *ShardReader) readReplica(loc repLoc) (Replica, error) {
	b := make([]byte, loc.n)
	if k, err := s.ra.ReadAt(b, loc.off); k < len(b) {
		return Replica{}, fmt.Errorf("%s: reading replication %d again: %w", s.name, loc.rep, err)
	}
	if crc32.Checksum(b, castagnoli) != loc.crc {
		return Replica{}, fmt.Errorf("%s: replication %d has changed since it was checked: was the file rewritten during the merge?", s.name, loc.rep)
	}
	var rep Replica
	if err := json.Unmarshal(b, &rep); err != nil {
		return Replica{}, fmt.Errorf("%s: replication %d: %w", s.name, loc.rep, err)
	}
	if rep.Replication != loc.rep {
		return Replica{}, fmt.Errorf("%s: replication %d reads as %d", s.name, loc.rep, rep.Replication)
	}
	return rep, nil
}

// mergePieces joins the shards' pieces of point i as mergePoint joins
// points, and returns the point without its results: they are read one
// at a time, in replication order, by its EachResult.
func mergePieces(spec *Spec, i int, pieces []*piece) (*RawPoint, error) {
	if len(pieces) == 0 {
		return nil, fmt.Errorf("point %d (%s) has no results", i, Grid(spec.Axes)[i].Label(spec.Axes))
	}
	q := pieces[0].pl
	total := 0
	for _, p := range pieces {
		if q.Warmup != p.pl.Warmup || q.Planned != p.pl.Planned || q.Note != p.pl.Note {
			return nil, fmt.Errorf("shards disagree on point %d (warm-up %+v vs %+v, planned %d vs %d): were they built from different versions?", i, q.Warmup, p.pl.Warmup, q.Planned, p.pl.Planned)
		}
		total += len(p.locs)
	}
	// Each piece's replications increase (ShardReader.check): merge them.
	type at struct {
		s   *ShardReader
		loc repLoc
	}
	order := make([]at, 0, total)
	next := make([]int, len(pieces))
	for len(order) < total {
		best := -1
		for k, p := range pieces {
			if next[k] < len(p.locs) && (best < 0 || p.locs[next[k]].rep < pieces[best].locs[next[best]].rep) {
				best = k
			}
		}
		order = append(order, at{pieces[best].shard, pieces[best].locs[next[best]]})
		next[best]++
	}
	for k, a := range order {
		if a.loc.rep != k {
			return nil, fmt.Errorf("point %d: replication %d missing or repeated", i, k)
		}
	}
	if total != q.Planned {
		return nil, fmt.Errorf("point %d has %d replications, want %d", i, total, q.Planned)
	}
	rp := &RawPoint{Index: i, Warmup: q.Warmup, Planned: q.Planned, Note: q.Note, Results: []Replica{}}
	rp.read = func(f func(Replica) error) error {
		for _, a := range order {
			rep, err := a.s.readReplica(a.loc)
			if err != nil {
				return err
			}
			if err := f(rep); err != nil {
				return err
			}
		}
		return nil
	}
	return rp, nil
}

// EachResult calls f with each of the point's results in replication
// order, and returns f's first error. A point of a Record holds them in
// Results; a point MergeShards hands on holds none there, and EachResult
// reads each from its shard file as it goes (memory holds one), checked
// against what MergeShards checked: it returns an error naming the file
// if one can no longer be read or has changed since.
func (p *RawPoint) EachResult(f func(Replica) error) error {
	if p.read != nil {
		return p.read(f)
	}
	for _, r := range p.Results {
		if err := f(r); err != nil {
			return err
		}
	}
	return nil
}
