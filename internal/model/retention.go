package model

import "time"

// Forget drops the session's turns beyond the policy: all but the newest
// Keep, and those that started more than OlderThan ago. The open turn and
// the redo stack are never touched. It returns the keys to delete. load
// reads turn n of the session.
func Forget(sess *SessionRecord, o GCOptions, now time.Time, load func(n int) (*Turn, error)) ([][]byte, error) {
	var dead [][]byte
	keepFrom := 0
	if o.Keep >= 0 && len(sess.Turns) > o.Keep {
		keepFrom = len(sess.Turns) - o.Keep
	}
	var kept []int
	for i, n := range sess.Turns {
		last := i == len(sess.Turns)-1
		drop := i < keepFrom
		if !drop && o.OlderThan >= 0 && !last {
			t, err := load(n)
			if err != nil {
				return nil, err
			}
			drop = now.Sub(t.Started) > o.OlderThan
		}
		if drop && last {
			t, err := load(n)
			if err != nil {
				return nil, err
			}
			drop = !t.Open()
		}
		if drop {
			dead = append(dead, TurnKey(sess.Name, n))
			sess.Forgotten = max(sess.Forgotten, n)
		} else {
			kept = append(kept, n)
		}
	}
	sess.Turns = kept
	return dead, nil
}
