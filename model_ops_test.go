package turnback_test

// The model-based test (model_test.go): the API steps (snap, end, undo,
// redo, restore, status) and what each must report.

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"sync"

	"github.com/turnback/turnback"
)

// ---------------------------------------------------------------------
// API steps.

func (h *harness) apiSnap() {
	now := h.fs.clone()
	st := h.stamps()
	msg := fmt.Sprintf("step %d", h.step)
	if h.rng.Intn(3) == 0 {
		msg = ""
	}
	res, err := h.repo.Snap(h.ctx, msg)
	if err != nil {
		h.failf("Snap: %v", err)
	}
	h.untouched("Snap", st, nil)
	// Without a message, an unchanged open turn without one is kept.
	if n := len(h.sess.turns); msg == "" && n > 0 && h.sess.turns[n-1].open() && !h.sess.turns[n-1].msg &&
		h.sess.turns[n-1].before.canon() == now.canon() && h.sess.last != nil && h.sess.last.canon() == now.canon() {
		open := h.sess.turns[n-1]
		h.logf("Snap -> %s kept turn %d", res.Snapshot.Short(), res.Turn)
		h.count("snap: kept the open turn")
		h.learn(res.Snapshot, now, "Snap")
		if !res.Kept || res.Turn != open.n || res.Closed != nil || res.Dropped {
			h.failf("Snap: kept %v turn %d closed %v dropped %v, model keeps turn %d open", res.Kept, res.Turn, res.Closed != nil, res.Dropped, open.n)
		}
		return
	}
	if res.Kept {
		h.failf("Snap: kept turn %d, model closes it", res.Turn)
	}
	closed, dropped := h.sess.closeOpen(now, "snap")
	t := &mturn{n: h.sess.next, before: now, msg: msg != ""}
	h.sess.next++
	h.sess.turns = append(h.sess.turns, t)
	h.sess.last = now
	h.sc.record(now, nil, false)
	h.sc.setLatest(now, countFiles(now))
	h.logf("Snap -> %s turn %d (closed %v, dropped %v)", res.Snapshot.Short(), res.Turn, closed != nil, dropped)
	h.count(fmt.Sprintf("snap: closed %v dropped %v", closed != nil, dropped))
	h.learn(res.Snapshot, now, "Snap")
	if res.Turn != t.n {
		h.failf("Snap: turn %d, model %d", res.Turn, t.n)
	}
	if (res.Closed != nil) != (closed != nil) || res.Dropped != dropped {
		h.failf("Snap: closed %v dropped %v, model closed %v dropped %v", res.Closed != nil, res.Dropped, closed != nil, dropped)
	}
}

func (h *harness) apiEnd() {
	now := h.fs.clone()
	st := h.stamps()
	res, err := h.repo.End(h.ctx)
	if err != nil {
		h.failf("End: %v", err)
	}
	h.untouched("End", st, nil)
	closed, dropped := h.sess.closeOpen(now, "end")
	if closed != nil {
		h.sess.last = now
		h.sc.record(now, nil, false)
		h.sc.setLatest(now, countFiles(now))
	}
	h.logf("End -> %s (no open turn %v, dropped %v)", res.Snapshot.Short(), res.NoOpenTurn, res.Dropped)
	h.count(fmt.Sprintf("end: closed %v dropped %v", closed != nil, dropped))
	if res.NoOpenTurn != (closed == nil) {
		h.failf("End: NoOpenTurn %v, model has an open turn: %v", res.NoOpenTurn, closed != nil)
	}
	if closed != nil {
		h.learn(res.Snapshot, now, "End")
		if res.Dropped != dropped || res.Turn != closed.n {
			h.failf("End: turn %d dropped %v, model turn %d dropped %v", res.Turn, res.Dropped, closed.n, dropped)
		}
	}
}

func (h *harness) countPlan(what string, turns int, force bool, conflicts []string, pl *mplan) {
	h.count(fmt.Sprintf("%s: %d turns", what, turns))
	if len(conflicts) > 0 && force {
		h.count(what + ": forced over conflicts")
	}
	if len(pl.accepted) == 0 {
		h.count(what + ": no action")
	}
	if len(pl.kept) > 0 {
		h.count(what + ": directory kept")
	}
	if len(pl.blocked) > 0 {
		h.count(what + ": blocked paths")
	}
	if len(pl.parentBlocked) > 0 {
		h.count(what + ": blocked below a file or symlink")
	}
	for _, a := range pl.accepted {
		if a.old != nil && a.new != nil && a.old.kind != a.new.kind {
			h.count(what + ": type change " + a.old.kind.String() + "->" + a.new.kind.String())
		}
	}
}

// checkRestore compares a restore's result with the model's plan and
// adopts the plan's result as the folder.
func (h *harness) checkRestore(what string, res *turnback.RestoreResult, cur mtree, pl *mplan) {
	h.checkRestoreAs(what, res, cur, pl.result, pl)
}

// checkRestoreAs is checkRestore for a command whose checkpoint and
// result are the states cp and result (a scoped capture's: see
// model_scope_test.go).
func (h *harness) checkRestoreAs(what string, res *turnback.RestoreResult, cp, result mtree, pl *mplan) {
	h.learn(res.Checkpoint, cp, what+" checkpoint")
	h.learn(res.Result, result, what+" result")
	if len(pl.madeParents) == 0 {
		h.checkList(what+" restored", res.Restored, pl.restored)
		h.checkList(what+" deleted", res.Deleted, pl.deleted)
		h.checkList(what+" created", res.Created, pl.made)
	}
	h.checkList(what+" not restorable", notePaths(res.NotRestorable), append(slices.Clone(pl.blocked), pl.kept...))
	h.fs = pl.result
}

// modelKnownBugs names the bugs this test found that are not fixed yet;
// each has a failing regression test in model_regress_test.go. Unless
// TURNBACK_MODEL_STRICT=1 or -model.strict, a step the model predicts
// would hit one is skipped, or where the bug's effect is simple to state
// (conflict-without-change) the model expects it; either way it is
// counted in the log. Delete an entry once its bug is fixed.
var modelKnownBugs = map[string]string{}

var (
	modelStrictFlag = flag.Bool("model.strict", false, "model test: fail on known bugs instead of skipping or expecting them (also TURNBACK_MODEL_STRICT=1)")
	modelAvoidedMu  sync.Mutex
	modelAvoided    = map[string]int{}
)

func modelStrict() bool { return *modelStrictFlag || os.Getenv("TURNBACK_MODEL_STRICT") == "1" }

// knownBug returns the known bug a restore with plan pl would hit, or "".
func knownBug(pl *mplan) string {
	if _, ok := modelKnownBugs["missing-parent"]; ok && len(pl.madeParents) > 0 {
		return "missing-parent"
	}
	return ""
}

// avoid reports the known bug a step would hit, counting it, or "" (also
// in strict mode).
func (h *harness) avoid(pl *mplan) string {
	if modelStrict() {
		return ""
	}
	bug := knownBug(pl)
	if bug != "" {
		h.countKnown(bug)
	}
	return bug
}

func (h *harness) countKnown(bug string) {
	modelAvoidedMu.Lock()
	modelAvoided[bug]++
	modelAvoidedMu.Unlock()
}

// withIdle returns the conflicts a restore reports: the model's, plus
// (known bug conflict-without-change) idle, the paths it would not
// change that hold something else than the turn or undo left there.
func (h *harness) withIdle(conflicts, idle []string) []string {
	if _, ok := modelKnownBugs["conflict-without-change"]; !ok || modelStrict() || len(idle) == 0 {
		return conflicts
	}
	h.countKnown("conflict-without-change")
	out := append(slices.Clone(conflicts), idle...)
	sort.Strings(out)
	return out
}

func (h *harness) apiRestore() {
	if len(h.ids) == 0 || h.rng.Intn(15) == 0 {
		id := fmt.Sprintf("%064x", h.rng.Uint64())
		stamps := h.stamps()
		_, err := h.repo.Restore(h.ctx, id, turnback.RestoreOptions{})
		h.logf("Restore(unknown %s) -> %v", id[:12], err)
		h.untouched("Restore of an unknown id", stamps, nil)
		if !errors.Is(err, turnback.ErrUnknownID) {
			h.failf("Restore of an unknown id: %v, want ErrUnknownID", err)
		}
		return
	}
	id := h.pick(h.ids)
	target := h.stateOf[id]
	arg := id
	if h.rng.Intn(3) > 0 {
		arg = id[:12]
	}
	cur := h.fs.clone()
	var actions []maction
	changed := changedPaths(cur, target)
	// An undo's or redo's state puts back the paths it vouches for alone.
	vouched, partial := h.sc.vouched(target)
	if partial {
		changed = keepVouchedModel(changed, vouched, cur, target)
		h.count("restore: a partial state")
	}
	for _, p := range changed {
		actions = append(actions, maction{path: p, old: cur.get(p), new: target.get(p)})
	}
	pl := planModel(cur, target, actions)
	if !partial && pl.result.canon() != target.canon() {
		h.failf("model: restore plan does not reach its target:\n%s", diffTrees(target, pl.result))
	}
	if bug := h.avoid(pl); bug != "" {
		h.logf("Restore(%s): skipped, the model says it would hit known bug %s", arg[:12], bug)
		return
	}
	stamps := h.stamps()
	if h.rng.Intn(4) == 0 {
		res, err := h.repo.Restore(h.ctx, arg, turnback.RestoreOptions{DryRun: true})
		if err != nil {
			h.failf("Restore(%s) dry run: %v", arg, err)
		}
		h.untouched("Restore dry run", stamps, nil)
		h.checkDry(fmt.Sprintf("Restore(%s, dry)", arg[:12]), res, err, 0, nil, true, pl, nil, nil, false)
	}
	res, err := h.repo.Restore(h.ctx, arg, turnback.RestoreOptions{})
	if err != nil {
		h.logf("Restore(%s) -> error", arg[:12])
		h.failf("Restore(%s): %v", arg, err)
	}
	h.logf("Restore(%s) -> restored %q deleted %q created %q not restorable %v", arg[:12], res.Restored, res.Deleted, res.Created, res.NotRestorable)
	if (res.Partial != nil) != partial || partial && !slices.Equal(res.Partial.Paths, vouched) {
		h.failf("Restore(%s): partial %+v, model vouches for %q (partial %v)", arg[:12], res.Partial, vouched, partial)
	}
	h.checkRestore("Restore", res, cur, pl)
	h.sc.record(cur, nil, false)
	h.sc.record(pl.result, nil, false)
	h.sc.setLatest(pl.result, countFiles(cur))
	h.untouched("Restore", stamps, touchedBy(pl))
	h.countPlan("restore", 0, false, nil, pl)
}

func (h *harness) apiStatus() {
	stamps := h.stamps()
	st, err := h.repo.Status(h.ctx)
	if err != nil {
		h.failf("Status: %v", err)
	}
	h.untouched("Status", stamps, nil)
	// The session's last snapshot: the newest state it recorded.
	base := h.sess.last
	var got []string
	for _, c := range st.Changes {
		got = append(got, c.Path)
	}
	h.logf("Status -> %d changes", len(got))
	h.learn(st.Current, h.fs, "Status current")
	if base != nil {
		h.learn(st.Base, base, "Status base")
	} else if !st.Base.IsZero() {
		h.failf("Status: base %s, model has none", st.Base.Short())
	}
	if base == nil {
		base = mtree{}
	}
	h.checkList("Status changes", got, changedPaths(base, h.fs))
}

// changedOnly keeps the conflicting paths a forced command really
// changed (listed in changed: restored, deleted, created): only those are
// reported as overwritten. A redo of several turns filters each turn's
// conflicts by that turn's changes.
func changedOnly(conflicts []string, changed ...[]string) []string {
	in := map[string]bool{}
	for _, l := range changed {
		for _, p := range l {
			in[p] = true
		}
	}
	var out []string
	for _, c := range conflicts {
		if in[c] {
			out = append(out, c)
		}
	}
	return out
}
