package remote

type text struct{ long, example string }

// texts are the long help and examples of the remote commands.
var texts = map[string]text{
	"remote": {`Set, show, verify and collect the store's remote: a bucket and prefix on
an S3-compatible object store (AWS S3, MinIO, Ceph RGW, R2, versitygw)
that stores push sessions to and pull them from. Content is stored once
however many stores push it (content addressing), in pack objects with
an index each.

Endpoint, region and credentials come from flags of "remote set" or from
AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
(and AWS_SESSION_TOKEN). Only credentials given as flags are recorded in
the store; the environment's are read at each use. With an endpoint,
buckets are addressed path-style.`, `  turnback remote set s3://team-bucket/turnback
  turnback remote show
  turnback remote verify
  turnback remote gc`},
	"remote set": {`Record the store's remote, s3://BUCKET/PREFIX. The bucket must exist;
--create makes it. The endpoint and region given (or, failing those,
AWS_ENDPOINT_URL and AWS_REGION now) are recorded; credentials only when
given as flags.`, `  AWS_ENDPOINT_URL=http://127.0.0.1:7070 turnback remote set s3://turnback/team --create`},
	"remote show": {`Print the store's remote: its address, endpoint, region, and where its
credentials come from ("store" when recorded, "environment" otherwise).
The secret is never printed.`, `  turnback remote show --json`},
	"remote sessions": {`List the remote's sessions, each by the newest head a push of it wrote:
its name (short form, as sessions shows it), the agent that recorded it,
its turns, when its last turn started or ended, and its size: the bytes
of the packs and indexes its head names, which is at most what a clone
into an empty store downloads. Packs are shared, so the sizes of several
sessions may add up to more than the bucket holds. Newest last turn
first. With --json: every field of sessions --json, and "head" (the
head's address) and "bytes".`, `  turnback remote sessions
  turnback remote sessions --json`},
	"remote verify": {`Read the whole remote back: every pack against its name and index, every
record against its BLAKE3 address, every session's head, and that every
tree, blob, chunk list and chunk a session reaches is in a pack its head
names. Problems are listed, each naming its object; exit 1 then. Packs a
stopped push left without an index are counted as incomplete (gc removes
them), not as problems.`, `  turnback remote verify`},
	"remote gc": {`Delete from the remote what no pushed session needs. Safe while other
stores push: a run lists the packs no head names (gc/ in the bucket); a
later run, once --grace has passed, deletes those still unnamed. A push
never reuses a listed pack and fails rather than write its head after the
grace period. Heads a newer push of the same session replaced go once
older than the grace period. Run it periodically (say daily).`, `  turnback remote gc
  turnback remote gc --dry-run --json`},
	"push": {`Upload the session's turns (and their snapshots and checkpoints) and
every tree, blob and chunk they reach that the remote lacks, in packs of
about 16 MiB with an index each, --jobs at once; the session's head is
written last. A push that is stopped leaves the remote consistent; pushing
again reuses what it uploaded. Nothing new: nothing is written. The store
is held (read-only) only while the new records are read into packs staged
in the store directory; the upload follows without it, so a command that
writes (an agent's snap) does not wait for the network.

Which session: --session (a unique prefix is enough), else the session
of the folder's newest turn, as for every command (said on stderr:
"using session ..."); --all pushes every session.`, `  turnback push
  turnback push --all --json`},
	"pull": {`Bring the remote's newest head of the session into the store: what the
store lacks is downloaded, every record verified against its address
before it is written, then the session's turns are recorded. The folder
is not changed: the pull says which pulled turns it lacks and the
commands that bring them in. Until then status and diff show only the
edits made in the folder, and undo and redo refuse (exit 1), saying so.
--apply then brings in what the pulled turns changed, as undo does a
turn's: a path edited in the folder since is never overwritten (exit 3,
nothing changed; --force overwrites, the edits going into a checkpoint);
paths the turns did not change stay as they are. restore @N instead
makes the folder exactly turn N's state.

Local state is never lost: a local session that holds everything the
remote's does (undos, redos and turns not pushed included) is kept as
it is ("nothing to pull"); one that changed here while the remote's
changed too is refused with exit 3, nothing changed (diverged).

Which session: --session names one of the store's or the remote's (a
unique prefix is enough); else the session of the folder's newest turn,
as for every command; in a store with no turn, the remote's session of
the newest turn (said on stderr).`, `  turnback pull
  turnback pull --apply
  turnback pull --session agent-1`},
	"clone": {`Make FOLDER (empty, or absent) a copy of a remote session: its store
(--store, or the default place) gets the session's turns and what they
reach, the remote is recorded in it, then the folder is restored to the
session's newest state. log, diff, undo, redo and restore then work as
if the turns had been recorded there. Nothing is written into the folder
before everything is downloaded and verified: a damaged or missing object
fails the clone naming it, and the folder stays as it was.

Which session: --session names one of the remote's (a unique prefix is
enough; remote sessions lists them); without it, the remote's session
of the newest turn, said on stderr.`, `  turnback clone s3://team-bucket/turnback ./work
  turnback clone s3://team-bucket/turnback --session agent-1 ./work
  turnback --store /tmp/s clone s3://b/p ./w --session agent-1 --json`},
}
