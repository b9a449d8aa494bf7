package turnback

// Every sentinel and error type of the package, defined in
// internal/model (with the API's other values) and named here: callers
// branch on these with errors.Is and errors.As, never on message text.

import "github.com/turnback/turnback/internal/model"

// Error types; see each in internal/model.
type (
	// ConflictError: undo or redo would overwrite edits made outside
	// the turns (wraps ErrConflict); Result lists them.
	ConflictError = model.ConflictError
	// UnfinishedError wraps ErrUnfinished and the cause.
	UnfinishedError = model.UnfinishedError
	// AmbiguousSessionError lists the sessions FindSession or
	// LatestSession could not choose between.
	AmbiguousSessionError = model.AmbiguousSessionError
)

// Sentinels; each is documented in internal/model.
var (
	ErrConflict         = model.ErrConflict         // edits in the way; nothing changed
	ErrUnfinished       = model.ErrUnfinished       // an interrupted restore is not finished
	ErrBadSession       = model.ErrBadSession       // a session name the rule refuses
	ErrBusy             = model.ErrBusy             // another process holds the store
	ErrNoSpace          = model.ErrNoSpace          // the store's disk is (nearly) full
	ErrReadOnly         = model.ErrReadOnly         // recording on a read-only Repo
	ErrScope            = model.ErrScope            // the work tree is / or the home directory
	ErrStoreInWorkTree  = model.ErrStoreInWorkTree  // the store is inside the work tree
	ErrNotStore         = model.ErrNotStore         // the store directory is not turnback's
	ErrUnknownID        = model.ErrUnknownID        // no snapshot matches the id
	ErrAmbiguousID      = model.ErrAmbiguousID      // several snapshots match the id prefix
	ErrPath             = model.ErrPath             // a partial undo's path names nothing
	ErrVerify           = model.ErrVerify           // verify found damaged data
	ErrUnverified       = model.ErrUnverified       // content a restore needs is damaged
	ErrAmbiguousSession = model.ErrAmbiguousSession // several sessions may be meant
	ErrBadRef           = model.ErrBadRef           // a malformed turn reference or short id
	ErrShortID          = model.ErrShortID          // an id prefix too short (also ErrBadRef)
	ErrNoTurn           = model.ErrNoTurn           // no such turn (also ErrUnknownID)
	ErrOpenTurn         = model.ErrOpenTurn         // @N names the open turn
	ErrDiverged         = model.ErrDiverged         // the local and the remote session diverged
	ErrNoSession        = model.ErrNoSession        // no such session
	ErrInvalidMeta      = model.ErrInvalidMeta      // metadata CheckMeta refuses
	ErrNotApplied       = model.ErrNotApplied       // pulled turns are not in the folder
)
