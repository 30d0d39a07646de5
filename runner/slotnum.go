package runner

// SlotNumbers hands out job slot numbers ({%}, FAN_SLOT): the lowest free
// one, 1-based. The zero value is ready for use; it is not safe for
// concurrent use (its owner's lock guards it).
type SlotNumbers struct {
	free []bool // free[i]: slot number i+1 is free
}

// Take takes the lowest free number.
func (s *SlotNumbers) Take() int {
	for i, f := range s.free {
		if f {
			s.free[i] = false
			return i + 1
		}
	}
	s.free = append(s.free, false)
	return len(s.free)
}

// Put gives back number n, which Take returned.
func (s *SlotNumbers) Put(n int) { s.free[n-1] = true }
