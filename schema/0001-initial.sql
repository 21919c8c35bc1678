-- trashd index, version 1.  Applied by trashd inside one transaction
-- together with the user_version below; never edit a released migration,
-- add the next numbered file instead.

CREATE TABLE filesystems (
	id		INTEGER PRIMARY KEY,
	path		TEXT NOT NULL UNIQUE
);

-- One row per inode that entered a trash.  A row in a final state
-- (restored, wiped, purged) is history; a live row (trashed, wiping) is
-- unique per inode and filesystem.
CREATE TABLE entries (
	id		INTEGER PRIMARY KEY,
	fs_id		INTEGER NOT NULL REFERENCES filesystems(id),
	trash_uid	INTEGER NOT NULL,
	owner_uid	INTEGER NOT NULL,
	deleter_uid	INTEGER,		-- NULL: unknown
	name		TEXT NOT NULL,		-- name in /.trash/<uid>/
	orig_path	TEXT,			-- NULL: unknown
	deleted_ns	INTEGER NOT NULL,
	size		INTEGER NOT NULL,
	alloc		INTEGER NOT NULL,
	flags		INTEGER NOT NULL,
	state		TEXT NOT NULL CHECK (state IN
			    ('trashed', 'restored', 'wiping', 'wiped', 'purged')),
	dev		INTEGER NOT NULL,
	ino		INTEGER NOT NULL,
	generation	INTEGER,		-- NULL: unknown
	changed_ns	INTEGER NOT NULL
);
CREATE UNIQUE INDEX entries_live ON entries(fs_id, ino)
	WHERE state IN ('trashed', 'wiping');
CREATE INDEX entries_uid ON entries(fs_id, trash_uid, state, deleted_ns);
CREATE INDEX entries_age ON entries(fs_id, state, deleted_ns);

-- Per-user and per-group overrides of the config's defaults.
CREATE TABLE policies (
	kind		TEXT NOT NULL CHECK (kind IN ('user', 'group')),
	xid		INTEGER NOT NULL,
	quota		INTEGER,		-- bytes, 0: none, NULL: inherit
	retention	INTEGER,		-- seconds, 0: forever, NULL: inherit
	PRIMARY KEY (kind, xid)
);

CREATE TABLE audit (
	id		INTEGER PRIMARY KEY,
	time_ns		INTEGER NOT NULL,
	uid		INTEGER NOT NULL,	-- actor, -1: unknown
	pid		INTEGER NOT NULL,	-- actor, 0: the kernel
	action		TEXT NOT NULL,
	target		TEXT NOT NULL,
	result		TEXT NOT NULL
);

PRAGMA user_version = 1;
