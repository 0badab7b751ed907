/**
 * An account's website count and page-anchor counters on PostgreSQL, kept so
 * that creates into one account do not queue behind each other. Migration 3
 * kept them on the account's row, which every insert then held locked until its
 * commit (one fsync'd commit at a time per account). Since migration 4 the
 * trigger adds to one of SLOTS rows of `website_counters`, picked by the
 * connection's backend process, so concurrent transactions (one per connection)
 * touch different rows; readers add the account row's base (what migration 3
 * counted, or migrate-data set) and the slots. The website limit stays exact:
 * see `insertSql` and store.ts's insertWebsite.
 */

/** Slots per account: more than the connections of a few replicas' pools, so they rarely share one. */
export const COUNTER_SLOTS = 64;

export const COUNTERS_MIGRATION = `
CREATE TABLE website_counters (
  account_id integer NOT NULL,
  slot integer NOT NULL,
  count integer NOT NULL DEFAULT 0,
  version bigint NOT NULL DEFAULT 0,
  deletes bigint NOT NULL DEFAULT 0,
  -- Favourites set or cleared: they move rows in and out of the favourite filter's anchors.
  favorites bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, slot)
);
CREATE OR REPLACE FUNCTION websites_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO website_counters AS c (account_id, slot, count, version)
      VALUES (NEW.account_id, pg_backend_pid() % ${COUNTER_SLOTS}, 1, 1)
      ON CONFLICT (account_id, slot) DO UPDATE SET count = c.count + 1, version = c.version + 1;
  ELSE
    INSERT INTO website_counters AS c (account_id, slot, count, version, deletes)
      VALUES (OLD.account_id, pg_backend_pid() % ${COUNTER_SLOTS}, -1, 1, 1)
      ON CONFLICT (account_id, slot) DO UPDATE SET count = c.count - 1, version = c.version + 1,
        deletes = c.deletes + 1;
  END IF;
  RETURN NULL;
END $$;
CREATE FUNCTION websites_favorites() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO website_counters AS c (account_id, slot, favorites)
    VALUES (NEW.account_id, pg_backend_pid() % ${COUNTER_SLOTS}, 1)
    ON CONFLICT (account_id, slot) DO UPDATE SET favorites = c.favorites + 1;
  RETURN NULL;
END $$;
CREATE TRIGGER websites_favorites AFTER UPDATE OF favorited_at ON websites FOR EACH ROW
  WHEN ((OLD.favorited_at IS NULL) <> (NEW.favorited_at IS NULL)) EXECUTE FUNCTION websites_favorites();
`;

/** The sum of one counter column over an account's slots; `account` is an SQL expression for its id. */
const slots = (column: string, account: string) =>
  `coalesce((SELECT sum(${column}) FROM website_counters WHERE account_id = ${account}), 0)`;

/** The account's website count, as an SQL expression over the `accounts` row in scope (`alias`). */
export const websiteCountSql = (alias = 'accounts') =>
  `(${alias}.website_count + ${slots('count', `${alias}.id`)})::int`;

/** `total`, `version`, `deletes` and `favorites` of one account ($n), from one snapshot. */
export const countersSql = (param: string) =>
  `SELECT ${websiteCountSql('a')} AS total,
     (a.website_version + ${slots('version', 'a.id')})::bigint AS version,
     (a.website_deletes + ${slots('deletes', 'a.id')})::bigint AS deletes,
     ${slots('favorites', 'a.id')}::bigint AS favorites
   FROM accounts a WHERE a.id = ${param}`;
