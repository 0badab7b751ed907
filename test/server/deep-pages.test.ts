// Deep pages through page anchors give exactly the pages OFFSET gives, in every
// order and filter, also after another connection inserts, deletes and changes
// favourites (stale anchors are noticed through the database's counters, not
// through this process). Their cost is measured in `npm run bench:server`
// (middle pages), not here.
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/server/index.js';
import { allPages, FILTERS, ORDERS, seedDeepPages, toggleFavourites } from '../helpers/deep-pages.js';
import { useTempDir } from '../helpers/temp.js';

describe('deep pages through page anchors', () => {
  const tempDir = useTempDir('deep-pages');
  let db: string;
  beforeEach(() => {
    db = join(tempDir(), 'pages.db');
  });

  it('equal the OFFSET pages in every order and filter, before and after another connection writes', async () => {
    const anchored = openSqliteStore(db, { pageAnchors: { stride: 7, minRows: 0, rebuildIntervalMs: 0 } });
    const plain = openSqliteStore(db, { pageAnchors: { minRows: Number.POSITIVE_INFINITY } });
    try {
      const { accountId, insert } = await seedDeepPages(plain);
      const compare = async () => {
        for (const filter of FILTERS) {
          for (const order of ORDERS) {
            const expected = await allPages(plain, accountId, order, filter);
            expect(expected[4]!.count).toBe(10); // deep pages hold rows: not a comparison of empty pages
            expect(await allPages(anchored, accountId, order, filter)).toEqual(expected);
          }
        }
      };
      await compare();
      // Another connection inserts (shifts domain positions) and deletes (shifts id positions).
      for (let n = 300; n < 330; n++) await insert(accountId, n);
      for (const id of [3, 50, 51, 120, 200]) await plain.deleteWebsite(accountId, id);
      await compare();
      await toggleFavourites(plain, accountId, [2, 4, 6, 7, 90, 150]);
      await compare();
    } finally {
      await anchored.close();
      await plain.close();
    }
  });
});
