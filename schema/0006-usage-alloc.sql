-- Version 6: per-user usage also counts allocated bytes (st_blocks * 512,
-- the entries' alloc column), which quotas and the free-space watermark
-- go by: a sparse file with a huge apparent size holds only its blocks.
-- bytes (apparent sizes) stays for what users are shown.

ALTER TABLE usage ADD COLUMN alloc INTEGER NOT NULL DEFAULT 0;
UPDATE usage SET alloc = coalesce((SELECT sum(e.alloc) FROM entries e
	WHERE e.fs_id = usage.fs_id AND e.trash_uid = usage.trash_uid AND
	e.state = 'trashed'), 0);

DROP TRIGGER usage_insert;
DROP TRIGGER usage_delete;
DROP TRIGGER usage_update;

CREATE TRIGGER usage_insert AFTER INSERT ON entries
	WHEN new.state = 'trashed'
BEGIN
	INSERT INTO usage (fs_id, trash_uid, count, bytes, alloc)
		VALUES (new.fs_id, new.trash_uid, 1, new.size, new.alloc)
		ON CONFLICT (fs_id, trash_uid) DO UPDATE SET
		count = count + 1, bytes = bytes + excluded.bytes,
		alloc = alloc + excluded.alloc;
END;

CREATE TRIGGER usage_delete AFTER DELETE ON entries
	WHEN old.state = 'trashed'
BEGIN
	UPDATE usage SET count = count - 1, bytes = bytes - old.size,
		alloc = alloc - old.alloc
		WHERE fs_id = old.fs_id AND trash_uid = old.trash_uid;
END;

CREATE TRIGGER usage_update AFTER UPDATE OF fs_id, trash_uid, size, alloc,
	state ON entries
	WHEN old.state = 'trashed' OR new.state = 'trashed'
BEGIN
	UPDATE usage SET count = count - 1, bytes = bytes - old.size,
		alloc = alloc - old.alloc
		WHERE old.state = 'trashed' AND fs_id = old.fs_id AND
		trash_uid = old.trash_uid;
	INSERT INTO usage (fs_id, trash_uid, count, bytes, alloc)
		SELECT new.fs_id, new.trash_uid, 1, new.size, new.alloc
		WHERE new.state = 'trashed'
		ON CONFLICT (fs_id, trash_uid) DO UPDATE SET
		count = count + 1, bytes = bytes + excluded.bytes,
		alloc = alloc + excluded.alloc;
END;

PRAGMA user_version = 6;
