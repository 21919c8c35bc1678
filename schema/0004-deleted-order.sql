-- Version 4: lists and purges walk entries oldest first, a page at a
-- time, from a (deleted_ns, id) cursor.  This index (the rowid, id, is
-- its last column) serves that order and that cursor for any filter, so
-- each page costs the rows it returns, not a scan and sort of the table.
CREATE INDEX entries_deleted ON entries(deleted_ns);

PRAGMA user_version = 4;
