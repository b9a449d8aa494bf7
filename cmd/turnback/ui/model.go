package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/turnback/turnback"
)

// pane is a part of the screen the keys move in.
type pane int

const (
	paneTimeline pane = iota
	panePaths
	paneDiff
)

// Config is how Run and New set the UI up.
type Config struct {
	Folder *Folder
	// Session is the session shown (a name FindSession resolved, see
	// Pick); All shows every session.
	Session string
	All     bool
	// Color: NO_COLOR unset and a terminal that shows colour.
	Color bool
	// Now is the clock ages are measured with (nil: time.Now), Loc the
	// zone times are shown in (nil: local time).
	Now func() time.Time
	Loc *time.Location
	// Poll is how often the UI looks for new turns and the working
	// tree's edits; 0 turns live refresh off (tests).
	Poll time.Duration
}

// Model is the UI's state (a bubbletea model).
type Model struct {
	cfg   Config
	ctx   context.Context
	st    styles
	w, h  int
	focus pane

	tl      *timeline
	loadErr string
	loading bool
	probe   string // the last store stamp or session list seen
	all     bool

	rows     []row
	cur, top int

	work       *workState
	workNext   time.Time // when the working tree is looked at next
	workBusy   bool
	statusTook time.Duration

	turns   map[string]*turnData // loaded turns, by turnKey
	want    string               // the turn key the right pane shows
	pcur    int                  // the path cursor
	ptop    int
	toggled map[string]bool // directories flipped from their default

	diff     *fileDiff
	diffKey  string
	hl       *highlighter
	dtop     int
	dleft    int
	filter   string // the path (or turn) filter
	editing  bool   // the filter is being typed
	tfilter  string
	modal    *modal
	message  string // the bottom line's note
	quitting bool
}

// workState is the working tree's edits since the session's last
// snapshot.
type workState struct {
	res *turnback.StatusResult
	err string
}

// turnData is what the right pane shows for a turn (or the working tree).
type turnData struct {
	files []turnback.FileDiff
	lost  map[string]bool
	err   string
	// skipped are the paths the newer state skips, not deleted, and
	// words says so for them: as show or status does.
	skipped []turnback.Ignored
	words   string
}

// New returns the UI's model for cfg.
func New(ctx context.Context, cfg Config) *Model {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Model{cfg: cfg, ctx: ctx, st: newStyles(cfg.Color), w: 80, h: 24, all: cfg.All,
		turns: map[string]*turnData{}, toggled: map[string]bool{}, loading: true}
}

// Messages of the UI's own commands.
type (
	loadedMsg struct {
		tl    *timeline
		err   error
		probe string
	}
	probedMsg struct {
		probe string
		err   error
	}
	workMsg struct {
		res  *turnback.StatusResult
		err  error
		took time.Duration
	}
	turnMsg struct {
		key  string
		data *turnData
	}
	lostMsg struct {
		tl   *timeline
		lost map[string]map[int][]string
	}
	tickMsg struct{}
	planMsg struct {
		a   action
		res *turnback.RestoreResult
		err error
	}
	doneMsg struct {
		a   action
		res *turnback.RestoreResult
		err error
	}
)

// Init loads the timeline and starts the live refresh.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.loadCmd(), m.workCmd(), m.tickCmd())
}

func (m *Model) tickCmd() tea.Cmd {
	if m.cfg.Poll <= 0 {
		return nil
	}
	return tea.Tick(m.cfg.Poll, func(time.Time) tea.Msg { return tickMsg{} })
}

// sessionNames are the sessions to load: nil for every one.
func (m *Model) sessionNames() []string {
	if m.all {
		return nil
	}
	return []string{m.cfg.Session}
}

func (m *Model) loadCmd() tea.Cmd {
	m.loading = true
	f, names, ctx := m.cfg.Folder, m.sessionNames(), m.ctx
	return func() tea.Msg {
		tl, err := loadTimeline(ctx, f, names)
		p, _ := probe(ctx, f, tl.served)
		return loadedMsg{tl: tl, err: err, probe: p}
	}
}

// probe is a cheap sign of change: the store directory's stamp, or,
// when a daemon served the folder at the last load (served), the
// session list it gives (the daemon holds the store, so the stamp would
// not move). A daemon that starts or stops changes it too.
func probe(ctx context.Context, f *Folder, served bool) (string, error) {
	if !served {
		return f.stamp(), nil
	}
	out := "served\n"
	err := f.read(ctx, turnback.DefaultSession, func(repo *turnback.Repo) error {
		if !repo.Served() {
			out = "local\n"
		}
		list, err := repo.Sessions(ctx)
		for _, s := range list {
			out += fmt.Sprintf("%q %d %d %v %d\n", s.Name, s.Turns, s.Redo, s.Open, s.LastTurn.UnixNano())
		}
		return err
	})
	return out, err
}

// lostCmd loads the unprotected marks of tl's turns (see loadLost).
func (m *Model) lostCmd(tl *timeline) tea.Cmd {
	if tl.served {
		return nil
	}
	f, ctx := m.cfg.Folder, m.ctx
	return func() tea.Msg {
		lost, err := loadLost(ctx, f, tl)
		if err != nil {
			return nil // the marks only; the timeline stands
		}
		return lostMsg{tl: tl, lost: lost}
	}
}

func (m *Model) probeCmd() tea.Cmd {
	f, ctx, served := m.cfg.Folder, m.ctx, m.served()
	return func() tea.Msg {
		p, err := probe(ctx, f, served)
		return probedMsg{probe: p, err: err}
	}
}

func (m *Model) workCmd() tea.Cmd {
	if m.workBusy {
		return nil
	}
	m.workBusy = true
	f, s, ctx := m.cfg.Folder, m.cfg.Session, m.ctx
	return func() tea.Msg {
		start := time.Now()
		var res *turnback.StatusResult
		err := f.read(ctx, s, func(repo *turnback.Repo) error {
			var err error
			res, err = repo.Status(ctx)
			return err
		})
		return workMsg{res: res, err: err, took: time.Since(start)}
	}
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.clamp()
		return m, nil
	case loadedMsg:
		m.loading = false
		m.probe = msg.probe
		if msg.err != nil {
			m.loadErr = errText(msg.err)
			return m, nil
		}
		m.loadErr = ""
		m.setTimeline(msg.tl)
		return m, tea.Batch(m.selectCmd(), m.lostCmd(msg.tl))
	case lostMsg:
		if msg.tl == m.tl && msg.lost != nil {
			for i := range m.tl.sessions {
				m.tl.sessions[i].lost = msg.lost[m.tl.sessions[i].info.Name]
			}
			m.rebuildRows()
			clear(m.turns) // their unprotected paths too
			m.diffKey = ""
			return m, m.selectCmd()
		}
		return m, nil
	case probedMsg:
		if msg.err == nil && msg.probe != m.probe && !m.loading {
			return m, m.loadCmd()
		}
		return m, nil
	case workMsg:
		m.workBusy = false
		m.statusTook = msg.took
		m.workNext = time.Now().Add(max(time.Second, 5*msg.took))
		w := &workState{res: msg.res}
		if msg.err != nil {
			w = &workState{err: errText(msg.err)}
			if m.work != nil && m.work.res != nil {
				w = m.work // keep what was shown (a busy store, say)
			}
		}
		m.work = w
		if m.want == workKey && msg.res != nil {
			delete(m.turns, workKey) // its diff is loaded again
			return m, m.selectCmd()
		}
		return m, nil
	case turnMsg:
		m.turns[msg.key] = msg.data
		if msg.key == m.want {
			if m.pcur == 0 {
				m.pcur = firstFile(m.pathRows())
			}
			m.pathsChanged()
		}
		return m, nil
	case tickMsg:
		cmds := []tea.Cmd{m.tickCmd()}
		if !m.loading {
			cmds = append(cmds, m.probeCmd())
		}
		if time.Now().After(m.workNext) || m.served() {
			cmds = append(cmds, m.workCmd())
		}
		return m, tea.Batch(cmds...)
	case planMsg:
		return m, m.planned(msg)
	case doneMsg:
		return m, m.done(msg)
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.MouseWheelMsg:
		return m, m.wheel(msg)
	case tea.MouseClickMsg:
		return m, m.click(msg)
	}
	return m, nil
}

// served: a daemon served the folder when the timeline was loaded.
func (m *Model) served() bool { return m.tl != nil && m.tl.served }

// setTimeline takes a newly loaded timeline, keeping the cursor on the
// same turn where it still exists.
func (m *Model) setTimeline(tl *timeline) {
	var keep string
	if m.cur < len(m.rows) {
		keep = m.rowKey(m.rows[m.cur])
	}
	first := m.tl == nil
	m.tl = tl
	m.rebuildRows()
	for i, r := range m.rows {
		if m.rowKey(r) == keep && keep != "" {
			m.cur = i
			break
		}
	}
	if first {
		// Open on the newest turn, else the working tree.
		m.cur = 0
		for i, r := range m.rows {
			if r.kind == rowTurn {
				m.cur = i
				break
			}
		}
	}
	m.clamp()
}

func (m *Model) rebuildRows() {
	m.rows = buildRows(m.tl, true, m.tfilter)
	if m.cur >= len(m.rows) {
		m.cur = max(0, len(m.rows)-1)
	}
}

// rowKey identifies a row across reloads.
func (m *Model) rowKey(r row) string {
	switch r.kind {
	case rowWork:
		return workKey
	case rowSession:
		return "s/" + m.tl.sessions[r.sess].info.Name
	}
	return turnKey(m.tl.sessions[r.sess].info.Name, r.turn)
}

const workKey = "work"

// turnKey names a turn's content: session, number and states.
func turnKey(session string, t *turnback.Turn) string {
	return fmt.Sprintf("t/%s/%d/%s/%s", session, t.N, t.BeforeID, t.AfterID)
}

// selectCmd loads what the right pane needs for the timeline's cursor.
func (m *Model) selectCmd() tea.Cmd {
	if m.cur >= len(m.rows) {
		return nil
	}
	r := m.rows[m.cur]
	key := m.rowKey(r)
	if key != m.want {
		m.want, m.ptop = key, 0
		clear(m.toggled)
		m.pcur = firstFile(m.pathRows())
		m.pathsChanged()
	}
	if r.kind == rowSession || m.turns[key] != nil {
		return nil
	}
	f, ctx := m.cfg.Folder, m.ctx
	session := m.cfg.Session
	var from, to string
	lost := map[string]bool{}
	words := "skipped now"
	if r.kind == rowTurn {
		session = m.tl.sessions[r.sess].info.Name
		from, to = r.turn.BeforeID, r.turn.AfterID
		if r.turn.Open() {
			to = ""
		} else {
			words = "skipped after the turn"
		}
		for _, p := range r.lost {
			lost[p] = true
		}
	}
	return func() tea.Msg {
		d := &turnData{lost: lost, words: words}
		err := f.read(ctx, session, func(repo *turnback.Repo) error {
			res, err := repo.Compare(ctx, from, to)
			if err == nil {
				d.files, d.skipped = res.Files, res.SkippedNow
			}
			return err
		})
		if err != nil {
			d.err = errText(err)
		}
		return turnMsg{key: key, data: d}
	}
}

// pathsChanged resets the diff after the path list or its cursor moved.
func (m *Model) pathsChanged() {
	rows := m.pathRows()
	if m.pcur >= len(rows) {
		m.pcur = max(0, len(rows)-1)
	}
	key := ""
	if td := m.turns[m.want]; td != nil && m.pcur < len(rows) && rows[m.pcur].file >= 0 {
		key = m.want + "\x00" + rows[m.pcur].path
		if key != m.diffKey {
			fd := td.files[rows[m.pcur].file]
			m.diff = newFileDiff(fd, td.lost[fd.Path])
			m.hl = nil
			if m.cfg.Color {
				m.hl = newHighlighter(fd.Path)
			}
			m.dtop, m.dleft = 0, 0
		}
	}
	if key == "" {
		m.diff = nil
	}
	m.diffKey = key
	m.clamp()
}

// pathRows are the rows of the path list for the turn shown.
func (m *Model) pathRows() []pathRow {
	td := m.turns[m.want]
	if td == nil {
		return nil
	}
	return append(buildPathRows(td.files, m.toggled, m.filter), skippedRows(td.skipped, td.words, m.filter)...)
}

// loc is the zone times are shown in.
func (m *Model) loc() *time.Location {
	if m.cfg.Loc != nil {
		return m.cfg.Loc
	}
	return time.Local
}

// errText is an error for the screen: one line.
func errText(err error) string {
	var ce *turnback.ConflictError
	if errors.As(err, &ce) {
		return "conflict: edited since the turn"
	}
	return oneLine(err.Error())
}

// firstFile is the first row of rows that is a changed path and not a
// directory (0 when none is).
func firstFile(rows []pathRow) int {
	for i, r := range rows {
		if !r.dir && r.file >= 0 {
			return i
		}
	}
	return 0
}
