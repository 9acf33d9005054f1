"""The triggers that keep `crm_pipeline_total` equal to the open and closed deals summed by owner
and stage, whatever writes a deal (a service, a seeder's bulk insert, PostgreSQL's COPY).

The pipeline report then sums at most one row per owner and stage instead of every deal, so its
cost follows the number of sellers, not of deals. A group whose last deal leaves it is deleted, so
the table always holds exactly what `GROUP BY owner_id, stage` over the deals gives (a test checks
it after writes on both backends). Weighted amounts are kept as cents x percent, unrounded, as the
report sums them.
"""

from __future__ import annotations

TOTALS = "crm_pipeline_total"

# SQLite: one statement per change, in trigger bodies (UPSERT needs SQLite 3.24).
_SQLITE_ADD = (f"INSERT INTO {TOTALS} (owner_id, stage, deals, amount_cents, weighted) "
               "VALUES (NEW.owner_id, NEW.stage, 1, NEW.amount_cents, NEW.amount_cents * NEW.probability) "
               "ON CONFLICT (owner_id, stage) DO UPDATE SET deals = deals + 1, "
               "amount_cents = amount_cents + excluded.amount_cents, weighted = weighted + excluded.weighted;")
_SQLITE_REMOVE = (f"UPDATE {TOTALS} SET deals = deals - 1, amount_cents = amount_cents - OLD.amount_cents, "
                  "weighted = weighted - OLD.amount_cents * OLD.probability "
                  "WHERE owner_id = OLD.owner_id AND stage = OLD.stage; "
                  f"DELETE FROM {TOTALS} WHERE owner_id = OLD.owner_id AND stage = OLD.stage AND deals = 0;")
_WATCHED = "owner_id, stage, amount_cents, probability"

SQLITE = [
    f"CREATE TRIGGER crm_pipeline_total_insert AFTER INSERT ON crm_opportunity BEGIN {_SQLITE_ADD} END",
    f"CREATE TRIGGER crm_pipeline_total_delete AFTER DELETE ON crm_opportunity BEGIN {_SQLITE_REMOVE} END",
    f"CREATE TRIGGER crm_pipeline_total_update AFTER UPDATE OF {_WATCHED} ON crm_opportunity "
    f"BEGIN {_SQLITE_REMOVE} {_SQLITE_ADD} END",
]

# PostgreSQL: one plpgsql function for the three events; amounts in bigint (cents x percent
# overflows an integer).
POSTGRESQL = [
    f"""CREATE FUNCTION crm_pipeline_total_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    UPDATE {TOTALS} SET deals = deals - 1, amount_cents = amount_cents - OLD.amount_cents,
           weighted = weighted - OLD.amount_cents::bigint * OLD.probability
     WHERE owner_id = OLD.owner_id AND stage = OLD.stage;
    DELETE FROM {TOTALS} WHERE owner_id = OLD.owner_id AND stage = OLD.stage AND deals = 0;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO {TOTALS} AS t (owner_id, stage, deals, amount_cents, weighted)
    VALUES (NEW.owner_id, NEW.stage, 1, NEW.amount_cents, NEW.amount_cents::bigint * NEW.probability)
    ON CONFLICT (owner_id, stage) DO UPDATE SET deals = t.deals + 1,
       amount_cents = t.amount_cents + excluded.amount_cents, weighted = t.weighted + excluded.weighted;
  END IF;
  RETURN NULL;
END $$""",
    "CREATE TRIGGER crm_pipeline_total_insert_delete AFTER INSERT OR DELETE ON crm_opportunity "
    "FOR EACH ROW EXECUTE FUNCTION crm_pipeline_total_change()",
    f"CREATE TRIGGER crm_pipeline_total_update AFTER UPDATE OF {_WATCHED} ON crm_opportunity "
    "FOR EACH ROW EXECUTE FUNCTION crm_pipeline_total_change()",
]


def pipeline_total_triggers(dialect: str) -> list[str]:
    """The DDL that creates the triggers on a database of `dialect` ("sqlite" or "postgresql")."""
    return {"sqlite": SQLITE, "postgresql": POSTGRESQL}[dialect]
