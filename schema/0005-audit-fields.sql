-- Version 5: audit records as fields, not sentences.  What a user named
-- (an entry's name in the trash and its original path) is kept as its
-- bytes, in columns of its own, never formatted into a line that readers
-- split again: a file name can no longer forge a record or a field.
-- trashctl formats and escapes on output (trashctl(1), "Escaping").

CREATE TABLE audit_v5 (
	id		INTEGER PRIMARY KEY,
	time_ns		INTEGER NOT NULL,
	uid		INTEGER NOT NULL,	-- actor, -1: unknown
	pid		INTEGER NOT NULL,	-- actor, 0: the kernel
	action		TEXT NOT NULL,
	result		TEXT NOT NULL,
	entry_id	INTEGER,		-- the entry, NULL: none
	fs		BLOB,			-- its filesystem's mount point
	trash_uid	INTEGER,		-- whose trash, NULL: none
	owner_uid	INTEGER,		-- the file's owner, NULL: none
	name		BLOB,			-- its name in the trash
	path		BLOB,			-- its original path, relative to fs
	detail		TEXT			-- what else, in trashd's own words
);

-- Older rows were "id=N fs=F uid=U name=N path=P" sentences (or another
-- target: "uid=U", "user 1000"...) that cannot be split back reliably:
-- they keep their text as the detail, with the entry id, which starts
-- it, as a field.
INSERT INTO audit_v5 (id, time_ns, uid, pid, action, result, entry_id,
    detail)
	SELECT id, time_ns, uid, pid, action, result,
	    CASE WHEN target GLOB 'id=[0-9]*'
		THEN CAST(substr(target, 4) AS INTEGER) END,
	    target FROM audit;
DROP TABLE audit;
ALTER TABLE audit_v5 RENAME TO audit;
CREATE INDEX audit_time ON audit(time_ns);
CREATE INDEX audit_entry ON audit(entry_id) WHERE entry_id NOT NULL;

PRAGMA user_version = 5;
