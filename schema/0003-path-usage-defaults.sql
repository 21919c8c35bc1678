-- Version 3: restores by original path without a scan, per-user usage
-- kept current by triggers (status and quota read one row), and the
-- default policy and the free-space watermarks set over the control
-- socket, which take precedence over the config file's.

-- "restore PATH": an exact match, newest first, or a range of paths (a
-- directory), without a scan.
CREATE INDEX entries_path ON entries(fs_id, trash_uid, state, orig_path,
	deleted_ns);
-- A name that left a trash dir (inotify): its live entry, without a scan.
CREATE INDEX entries_name ON entries(fs_id, trash_uid, name)
	WHERE state = 'trashed';

-- Live ('trashed') entries per filesystem and trash uid.  Rows whose
-- count dropped to 0 stay; readers skip them.
CREATE TABLE usage (
	fs_id		INTEGER NOT NULL,
	trash_uid	INTEGER NOT NULL,
	count		INTEGER NOT NULL,
	bytes		INTEGER NOT NULL,
	PRIMARY KEY (fs_id, trash_uid)
) WITHOUT ROWID;
INSERT INTO usage (fs_id, trash_uid, count, bytes)
	SELECT fs_id, trash_uid, count(*), sum(size) FROM entries
	WHERE state = 'trashed' GROUP BY fs_id, trash_uid;

CREATE TRIGGER usage_insert AFTER INSERT ON entries
	WHEN new.state = 'trashed'
BEGIN
	INSERT INTO usage (fs_id, trash_uid, count, bytes)
		VALUES (new.fs_id, new.trash_uid, 1, new.size)
		ON CONFLICT (fs_id, trash_uid) DO UPDATE SET
		count = count + 1, bytes = bytes + excluded.bytes;
END;

CREATE TRIGGER usage_delete AFTER DELETE ON entries
	WHEN old.state = 'trashed'
BEGIN
	UPDATE usage SET count = count - 1, bytes = bytes - old.size
		WHERE fs_id = old.fs_id AND trash_uid = old.trash_uid;
END;

CREATE TRIGGER usage_update AFTER UPDATE OF fs_id, trash_uid, size, state
	ON entries
	WHEN old.state = 'trashed' OR new.state = 'trashed'
BEGIN
	UPDATE usage SET count = count - 1, bytes = bytes - old.size
		WHERE old.state = 'trashed' AND fs_id = old.fs_id AND
		trash_uid = old.trash_uid;
	INSERT INTO usage (fs_id, trash_uid, count, bytes)
		SELECT new.fs_id, new.trash_uid, 1, new.size
		WHERE new.state = 'trashed'
		ON CONFLICT (fs_id, trash_uid) DO UPDATE SET
		count = count + 1, bytes = bytes + excluded.bytes;
END;

-- Policies gain the kind 'default' (xid 0): the admins' defaults, over
-- the config file's.  SQLite cannot alter a CHECK: the table is rebuilt.
CREATE TABLE policies_v3 (
	kind		TEXT NOT NULL CHECK (kind IN ('user', 'group', 'default')),
	xid		INTEGER NOT NULL,
	quota		INTEGER,		-- bytes, 0: none, NULL: inherit
	retention	INTEGER,		-- seconds, 0: forever, NULL: inherit
	PRIMARY KEY (kind, xid)
);
INSERT INTO policies_v3 (kind, xid, quota, retention)
	SELECT kind, xid, quota, retention FROM policies;
DROP TABLE policies;
ALTER TABLE policies_v3 RENAME TO policies;

-- Free-space watermarks set over the socket, percent free: fs_id 0 for
-- every filesystem, else one filesystem (filesystems.id).
CREATE TABLE watermarks (
	fs_id		INTEGER PRIMARY KEY,
	watermark	INTEGER NOT NULL CHECK (watermark BETWEEN 0 AND 100)
);

PRAGMA user_version = 3;
