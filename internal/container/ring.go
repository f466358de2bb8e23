package container

// Ring is a FIFO of indices (int32) that grows by doubling and never shrinks,
// so a steady-state queue allocates nothing. Its size is a power of two,
// so positions wrap with a mask.
type Ring struct {
	buf        []int32
	head, size int
}

// Init sizes the ring for n entries, rounded up to a power of two.
func (q *Ring) Init(n int) {
	size := 1
	for size < n {
		size *= 2
	}
	q.buf = make([]int32, size)
}

// Len returns the number of entries queued.
func (q *Ring) Len() int { return q.size }

// Push appends v.
func (q *Ring) Push(v int32) {
	if q.size == len(q.buf) {
		nb := make([]int32, 2*len(q.buf))
		n := copy(nb, q.buf[q.head:])
		copy(nb[n:], q.buf[:q.head])
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.size)&(len(q.buf)-1)] = v
	q.size++
}

// Pop removes and returns the oldest entry; the ring must not be empty.
func (q *Ring) Pop() int32 {
	v := q.buf[q.head]
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.size--
	return v
}
