-- The audit log is append-only (DESIGN.md §11). The application only inserts into
-- audit_event (lib/server/audit.ts); these triggers make the database refuse any UPDATE or
-- DELETE of an event as well, whoever sends it. The Prisma schema does not change.
CREATE TRIGGER "audit_event_no_update"
BEFORE UPDATE ON "audit_event"
BEGIN
    SELECT RAISE(ABORT, 'audit_event is append-only: events cannot be updated');
END;

CREATE TRIGGER "audit_event_no_delete"
BEFORE DELETE ON "audit_event"
BEGIN
    SELECT RAISE(ABORT, 'audit_event is append-only: events cannot be deleted');
END;
