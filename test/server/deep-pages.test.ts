// Deep pages through page anchors give exactly the pages OFFSET gives, in every
// order, also after another connection inserts and deletes (stale anchors are
// noticed through the database's counters, not through this process). Their
// cost is measured in `npm run bench:server` (middle page), not here.
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/server/index.js';
import type { ListQuery, ServerStore } from '../../src/server/store/contract.js';
import { STORED_DEFAULTS } from '../helpers/server.js';
import { useTempDir } from '../helpers/temp.js';

const SHAPE = [
  ['id', { column: 'id' }],
  ['domain', { column: 'domain' }],
] as const;

async function allPages(store: ServerStore, accountId: number, sortBy: 'id' | 'domain', sort: 'asc' | 'desc') {
  const pages: string[] = [];
  for (let offset = 0; offset < 400; offset += 10) {
    const query: ListQuery = { accountId, sortBy, sort, limit: 10, offset };
    pages.push((await store.listWebsites(query, SHAPE)).json);
  }
  return pages;
}

describe('deep pages through page anchors', () => {
  const tempDir = useTempDir('deep-pages');
  let db: string;
  beforeEach(() => {
    db = join(tempDir(), 'pages.db');
  });

  it('equal the OFFSET pages in every order, before and after another connection writes', async () => {
    const anchored = openSqliteStore(db, { pageAnchors: { stride: 7, minRows: 0, rebuildIntervalMs: 0 } });
    const plain = openSqliteStore(db, { pageAnchors: { minRows: Number.POSITIVE_INFINITY } });
    try {
      const { id: accountId } = await plain.createAccount({ name: 'pages' });
      const { id: otherId } = await plain.createAccount({ name: 'other' });
      const insert = (owner: number, n: number) =>
        plain.insertWebsite(owner, `site-${(n * 7919) % 1000}-${n}.example`, STORED_DEFAULTS, new Date());
      for (let n = 0; n < 300; n++) await insert(n % 5 === 0 ? otherId : accountId, n);

      const compare = async () => {
        for (const sortBy of ['id', 'domain'] as const) {
          for (const sort of ['asc', 'desc'] as const) {
            expect(await allPages(anchored, accountId, sortBy, sort)).toEqual(
              await allPages(plain, accountId, sortBy, sort),
            );
          }
        }
      };
      await compare();
      // Another connection inserts (shifts domain positions) and deletes (shifts id positions).
      for (let n = 300; n < 330; n++) await insert(accountId, n);
      for (const id of [3, 50, 51, 120, 200]) await plain.deleteWebsite(accountId, id);
      await compare();
    } finally {
      await anchored.close();
      await plain.close();
    }
  });
});
