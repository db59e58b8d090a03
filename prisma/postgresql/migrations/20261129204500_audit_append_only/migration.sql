-- The audit log is append-only (DESIGN.md §11). The application only inserts into
-- audit_event (lib/server/audit.ts); these triggers make the database refuse any UPDATE,
-- DELETE or TRUNCATE of events as well, whoever sends it. The Prisma schema does not change.
-- (PostgreSQL counterpart of prisma/migrations/20261129204500_audit_append_only.)
CREATE FUNCTION "audit_event_append_only"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_event is append-only: events cannot be %',
        CASE TG_OP WHEN 'UPDATE' THEN 'updated' WHEN 'DELETE' THEN 'deleted' ELSE 'truncated' END
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE TRIGGER "audit_event_no_update"
BEFORE UPDATE ON "audit_event"
FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();

CREATE TRIGGER "audit_event_no_delete"
BEFORE DELETE ON "audit_event"
FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();

CREATE TRIGGER "audit_event_no_truncate"
BEFORE TRUNCATE ON "audit_event"
FOR EACH STATEMENT EXECUTE FUNCTION "audit_event_append_only"();
