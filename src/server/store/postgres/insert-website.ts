/**
 * The create statement on PostgreSQL ($1 account, $2 domain, $3–$9 values,
 * $10 timestamp), in two forms. `unlimited` inserts only when the account has
 * no website limit, holding its row FOR SHARE: creates run side by side, and an
 * operator setting a limit waits for those in flight (the later ones then take
 * the other form). `limited` calls a function (migration 4) that locks the row
 * FOR UPDATE and only then counts, in a snapshot of its own, so it sees every
 * create committed before it: creates into a limited account take turns, and
 * the limit stays exact. Each form is one statement, so one round trip.
 */
import { websiteCountSql } from './counters.js';

const COLUMNS =
  'account_id, domain, privacy, password_hash, email, exclude_bots, exclude_params, exclude_ips, favorited_at, created_at, updated_at';

export const INSERT_WITHIN_LIMIT_FUNCTION = `
CREATE FUNCTION sitesync_insert_within_limit(p_account integer, p_domain text, p_privacy integer,
  p_password_hash text, p_email integer, p_exclude_bots integer, p_exclude_params text, p_exclude_ips text,
  p_favorited_at text, p_now text) RETURNS SETOF websites LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM accounts WHERE id = p_account FOR UPDATE;
  -- A new command in a volatile function: a new snapshot (READ COMMITTED), taken with the row locked.
  RETURN QUERY INSERT INTO websites (${COLUMNS})
    SELECT accounts.id, p_domain, p_privacy, p_password_hash, p_email, p_exclude_bots, p_exclude_params,
      p_exclude_ips, p_favorited_at, p_now, p_now
    FROM accounts WHERE id = p_account
      AND (website_limit IS NULL OR ${websiteCountSql()} < website_limit)
    RETURNING *;
END $$;
`;

export function insertWebsiteSql(form: 'unlimited' | 'limited', returning: string): string {
  if (form === 'limited') {
    return `SELECT ${returning} FROM sitesync_insert_within_limit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;
  }
  return `WITH account AS (SELECT id FROM accounts WHERE id = $1 AND website_limit IS NULL FOR SHARE)
    INSERT INTO websites (${COLUMNS}) SELECT account.id, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10 FROM account
    RETURNING ${returning}`;
}
