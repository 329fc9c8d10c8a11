-- An organization's audit page is read newest first from audit_events_org_seq (docs/performance.md, "Plans
-- that hold on a large trail"). The unique index on `seq` alone offered PostgreSQL a second way: walk the whole
-- table backwards and skip other organizations' events, which it takes when it expects an organization's
-- events to be spread evenly. They are not: an organization whose last change is older than others' had its
-- page read past every newer event (200,000 skipped, 78 ms, for one page). Nothing reads by `seq` alone, and
-- an identity column is unique without it.
ALTER TABLE audit_events DROP CONSTRAINT audit_events_seq_unique;
