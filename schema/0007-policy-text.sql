-- Version 7: a policy's quota and retention as the admin typed them
-- ("90d", "1536M"), next to the bytes and seconds that trashd enforces,
-- so that they are shown as they were given: 90d stays 90d and 7d stays
-- 7d, which no rendering of 604800 seconds can tell from 1w.  NULL: not
-- known (set before version 7, or set without a text), shown in the
-- largest unit that is exact.  trashd keeps a text only after parsing it
-- to the very value it goes with.

ALTER TABLE policies ADD COLUMN quota_text TEXT;
ALTER TABLE policies ADD COLUMN retention_text TEXT;

PRAGMA user_version = 7;
