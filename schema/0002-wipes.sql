-- Version 2: what each wipe did and what it could not promise, and an
-- index for the audit table's retention.

CREATE TABLE wipes (
	id		INTEGER PRIMARY KEY,
	entry_id	INTEGER REFERENCES entries(id),	-- NULL: orphan in .wipe
	time_ns		INTEGER NOT NULL,
	method		TEXT NOT NULL,
	result		TEXT NOT NULL,
	passes		INTEGER NOT NULL,
	bytes		INTEGER NOT NULL,
	nlink		INTEGER NOT NULL,	-- > 1: unlinked only
	promises	TEXT NOT NULL		-- what could not be promised
);
CREATE INDEX wipes_entry ON wipes(entry_id);
CREATE INDEX audit_time ON audit(time_ns);

PRAGMA user_version = 2;
