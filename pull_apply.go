package turnback

// Turns a pull brought that the folder lacks. A pull records the
// remote's turns in the store and leaves the folder as it is, so the
// session's last state (what status compares with, what undo expects)
// is the remote's, not the folder's. The pull therefore keeps a
// store-local record (m/pulled/<session>, never pushed) of the state
// the folder was at: while the session record is the one the pull
// wrote, status and diff compare with that state, undo and redo refuse
// (ErrNotApplied), and ApplyPulled brings in what the pulled turns
// changed, with undo's conflict rule. Any later write of the session
// record (snap, end, undo, redo, another pull) ends the record's
// validity; restore removes it (the folder is then what restore made).

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/internal/pathstate"
	"github.com/turnback/turnback/manifest"
)

// errServedPull: Pulled or ApplyPulled asked of a Repo a daemon serves
// (they run where the store is held: package internal/daemonop).
var errServedPull = errors.New("turnback: pulled turns: the operation runs in the process that holds the store")

// Pulled returns what pulls brought into session (empty: the Repo's)
// that the folder lacks, or nil when the folder is where the session
// left it. It runs in the process that holds the store.
func (r *Repo) Pulled(ctx context.Context, session string) (*Pulled, error) {
	if r.Served() {
		return nil, errServedPull
	}
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	sess, err := r.loadSession(ctx, cmp.Or(session, r.session))
	if err != nil {
		return nil, err
	}
	m, err := r.validPulled(ctx, sess)
	if err != nil || m == nil {
		return nil, err
	}
	p := &Pulled{Session: sess.Name, Turns: m.Turns}
	if p.Base, err = cas.ParseHash(m.Base); err == nil {
		p.Last, err = cas.ParseHash(m.Last)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: pulled record of session %s: %v", cas.ErrCorrupt, sess.Name, err)
	}
	if n := len(sess.Turns); n > 0 {
		p.Newest = sess.Turns[n-1]
		t, err := r.loadTurn(ctx, sess.Name, p.Newest)
		if err != nil {
			return nil, err
		}
		p.AtNewest = !t.Open() && t.After == p.Last
	}
	return p, nil
}

// validPulled returns the session's pulled record while it holds: the
// session record is still the one the pull wrote. nil otherwise.
func (r *Repo) validPulled(ctx context.Context, sess *model.SessionRecord) (*model.PulledRecord, error) {
	m := &model.PulledRecord{}
	ok, err := r.getJSON(ctx, []byte(model.PrefixPulled+sess.Name), m)
	if err != nil || !ok || m.Rev != sess.Rev || m.Last != sess.Last || m.Base == m.Last {
		return nil, err
	}
	return m, nil
}

// pulledEntry is the pulled record an import of remote (whose record is
// written as it is) leaves, or delete true when it leaves none: the
// folder already is at the remote's last state, or nothing is known of
// the folder (a new store: clone restores it itself).
func (r *Repo) pulledEntry(ctx context.Context, remote *model.SessionRecord) (e cas.Entry, del bool, err error) {
	local, err := r.loadSession(ctx, remote.Name)
	if err != nil {
		return e, false, err
	}
	key := []byte(model.PrefixPulled + remote.Name)
	m := &model.PulledRecord{Base: local.Last}
	had := sessionTurns(local)
	if prev, err := r.validPulled(ctx, local); err != nil {
		return e, false, err
	} else if prev != nil {
		m.Base, m.Fresh = prev.Base, prev.Fresh
		had = slices.DeleteFunc(had, func(n int) bool { return slices.Contains(prev.Turns, n) })
	}
	if m.Base == "" {
		m.Fresh = true
		h, err := r.latest(ctx)
		if err != nil {
			return e, false, err
		}
		if !h.IsZero() {
			m.Base = h.String()
		}
	}
	if m.Base == "" || m.Base == remote.Last || remote.Last == "" {
		return e, true, nil
	}
	m.Rev, m.Last = remote.Rev, remote.Last
	for _, n := range sessionTurns(remote) {
		if !slices.Contains(had, n) {
			m.Turns = append(m.Turns, n)
		}
	}
	slices.Sort(m.Turns)
	return cas.Entry{Key: key, Value: model.EncodeJSON(m)}, false, nil
}

// pulledBase returns the state status and diff compare the session
// with: the folder's, while a pull's record holds (see validPulled).
func (r *Repo) pulledBase(ctx context.Context, sess *model.SessionRecord) (cas.Hash, bool, error) {
	m, err := r.validPulled(ctx, sess)
	if err != nil || m == nil {
		return cas.Hash{}, false, err
	}
	h, err := cas.ParseHash(m.Base)
	if err != nil {
		return cas.Hash{}, false, fmt.Errorf("%w: pulled record of session %s: %v", cas.ErrCorrupt, sess.Name, err)
	}
	return h, true, nil
}

// refusePulled is undo's and redo's ErrNotApplied while the session's
// pulled turns are not in the folder.
func (r *Repo) refusePulled(ctx context.Context, op string) error {
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return err
	}
	if op == "undo" && len(sess.Turns) == 0 || op == "redo" && len(sess.Redo) == 0 {
		return nil // nothing to undo or redo: said as ever
	}
	m, err := r.validPulled(ctx, sess)
	if err != nil || m == nil {
		return err
	}
	what := model.TurnsText(m.Turns) + " was"
	if len(m.Turns) > 1 {
		what = model.TurnsText(m.Turns) + " were"
	}
	return model.NotAppliedError(fmt.Sprintf("turnback: %s changed nothing: session %s: %s pulled and not brought into the folder; "+
		"turnback pull --apply brings the pulled turns in first", op, sess.Name, what))
}

// pulledDeletes are the keys of every pulled record: a restore makes
// the folder another state, so none holds after it.
func (r *Repo) pulledDeletes(ctx context.Context) ([][]byte, error) {
	var out [][]byte
	err := r.backend.Scan(ctx, []byte(model.PrefixPulled), true, func(k, _ []byte) error {
		out = append(out, append([]byte(nil), k...))
		return nil
	})
	return out, err
}

// ApplyPulled brings into the folder what the session's pulled turns
// changed (Pulled): every path that differs between the folder's state
// at the pull and the session's last state is set to the latter, as
// undo sets a turn's paths (for a session the store had no record of,
// only the paths its pulled turns changed). A path edited since (its content is not
// what the pull found) is a conflict: nothing is changed, unless force
// (the edits then stay in the checkpoint). Paths no pulled turn changed
// stay as they are. Nothing pulled: Nothing. It runs in the process
// that holds the store, on session (empty: the Repo's).
func (r *Repo) ApplyPulled(ctx context.Context, session string, force bool) (*RestoreResult, error) {
	if r.Served() {
		return nil, errServedPull
	}
	res, err := r.applyPulled(ctx, cmp.Or(session, r.session), force)
	if res != nil && res.Moved == nil {
		res.Moved = []*Turn{}
	}
	return res, err
}

func (r *Repo) applyPulled(ctx context.Context, session string, force bool) (*RestoreResult, error) {
	if err := ValidSession(session); err != nil {
		return nil, err
	}
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	if r.readOnly {
		return nil, ErrReadOnly
	}
	sess, err := r.loadSession(ctx, session)
	if err != nil {
		return nil, err
	}
	m, err := r.validPulled(ctx, sess)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return &RestoreResult{Nothing: true}, nil
	}
	base, err := cas.ParseHash(m.Base)
	var last cas.Hash
	if err == nil {
		last, err = cas.ParseHash(m.Last)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: pulled record of session %s: %v", cas.ErrCorrupt, sess.Name, err)
	}
	snap, err := r.capture(ctx)
	if err != nil {
		return nil, err
	}
	now := snap.Root
	loader := manifest.NewCachingLoader(r.loader())
	var only map[string]bool
	if m.Fresh {
		if only, err = r.pulledPaths(ctx, loader, sess.Name, m.Turns, last); err != nil {
			return nil, err
		}
	}
	masks, err := r.usedUmasks(ctx)
	if err != nil {
		return nil, err
	}
	left := map[string]*manifest.Entry{}
	err = manifest.Diff(ctx, loader, base, last, func(c manifest.Change) error {
		// Where the folder's state holds what a restore here wrote for
		// last (its mode masked), no pulled turn changed the path.
		if (only == nil || only[c.Path]) && (c.New == nil || !pathstate.WrittenFrom(c.Old, c.New, masks)) {
			left[c.Path] = pathstate.ForeignOwner(c.Old) // what the folder held at the pull
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res := &RestoreResult{}
	actions, err := r.actionsFor(ctx, loader, left, now, func(p string) (*manifest.Entry, error) {
		e, err := manifest.Find(ctx, loader, last, p)
		return pathstate.ForeignTarget(e), err
	}, res, force)
	if err != nil {
		return nil, err
	}
	actions, ignored, err := r.dropIgnored(ctx, loader, actions, now, last, res)
	if err != nil {
		return nil, err
	}
	if len(res.Conflicts) > 0 && !force {
		return res, &ConflictError{Result: res}
	}
	// The session's last state stays the pulled one: status then shows
	// the edits made in the folder, which the apply kept.
	foreign, err := r.foreignEntry(ctx, sess.Name, m.Turns)
	if err != nil {
		return nil, err
	}
	out, err := r.execute(ctx, "pull --apply", now, last, actions, model.Parents(res), force, func(cp, result cas.Hash) ([]cas.Entry, [][]byte, error) {
		return []cas.Entry{foreign, model.LocalizeEntry(sess.Name, last)}, [][]byte{[]byte(model.PrefixPulled + sess.Name)}, nil
	})
	if err != nil {
		return model.ConflictResult(res, err)
	}
	out.Turns, out.Conflicts = len(m.Turns), model.Overwritten(out, res.Conflicts)
	out.NotRestorable = append(out.NotRestorable, ignored...)
	// The folder is as the apply made it: the pulled states take its
	// owners (pull_owners.go). A failure leaves them as pulled.
	if err := r.localizeLast(ctx, sess.Name, last); err != nil {
		return out, fmt.Errorf("turnback: pull --apply done; recording the folder's owners in the pulled states: %w", err)
	}
	return out, nil
}

// pulledPaths are the paths the turns nums of session changed (an open
// turn: up to last).
func (r *Repo) pulledPaths(ctx context.Context, loader manifest.Loader, session string, nums []int, last cas.Hash) (map[string]bool, error) {
	paths := map[string]bool{}
	for _, n := range nums {
		t, err := r.loadTurn(ctx, session, n)
		if err != nil {
			return nil, fmt.Errorf("turnback: pulled turn %d of session %s: %w", n, session, err)
		}
		after := t.After
		if t.Open() {
			after = last
		}
		err = manifest.Diff(ctx, loader, t.Before, after, func(c manifest.Change) error {
			paths[c.Path] = true
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return paths, nil
}
