package gen

import "math"

// rng is splitmix64: tiny, fast and fully specified here, so generated
// trees depend only on the generator version and the seed.
type rng struct{ s uint64 }

func newRNG(seed uint64) *rng { return &rng{s: seed} }

// mix derives an independent seed from a seed and a stream number.
func mix(seed, stream uint64) uint64 {
	r := rng{s: seed ^ (stream * 0xd1342543de82ef95)}
	r.next()
	return r.next()
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a number in [0, n).
func (r *rng) intn(n int) int {
	if n <= 0 {
		return 0
	}
	return int(r.next() % uint64(n))
}

// float returns a number in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }

// logUniform returns a size between lo and hi, uniform in log scale.
func (r *rng) logUniform(lo, hi float64) int64 {
	return int64(math.Exp(math.Log(lo) + r.float()*(math.Log(hi)-math.Log(lo))))
}

// fill writes pseudo-random bytes into b.
func (r *rng) fill(b []byte) {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		v := r.next()
		b[i], b[i+1], b[i+2], b[i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		b[i+4], b[i+5], b[i+6], b[i+7] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
	}
	if i < len(b) {
		v := r.next()
		for ; i < len(b); i++ {
			b[i] = byte(v)
			v >>= 8
		}
	}
}
