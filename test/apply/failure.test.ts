// The one-line reason a failed change gets: the client's message for a user error, the user's terms for an
// update of a vanished site, the likely too long field on a 500 only, and a bug report for anything else.
import { describe, expect, it } from 'vitest';
import { describeFailure } from '../../src/apply/failure.js';
import { SitesyncError } from '../../src/model/errors.js';

const longList = Array.from({ length: 2_000 }, (_, i) => `10.0.${Math.floor(i / 250)}.${i % 250}`);

describe('describeFailure', () => {
  it('an error that is not the client’s is an internal error to report, with its message', () => {
    expect(describeFailure('create', new TypeError('x is not a function'))).toEqual({
      reason: 'internal error (please report): x is not a function',
    });
    expect(describeFailure('delete', 'thrown text')).toEqual({ reason: 'internal error (please report): thrown text' });
  });

  it('only an update that finds its site gone says it was deleted out of band', () => {
    const gone = new SitesyncError('not_found', 'PUT /api/v1/websites/7 → 404');
    expect(describeFailure('update', gone)).toEqual({
      reason: 'the site was deleted since the plan was made (out of band)',
      code: 'not_found',
    });
    const notFound = new SitesyncError('not_found', 'POST /api/v1/websites → 404');
    expect(describeFailure('create', notFound)).toEqual({ reason: 'POST /api/v1/websites → 404', code: 'not_found' });
  });

  it('names a likely too long field on a 500, and only on a 500', () => {
    const server = new SitesyncError('server', 'POST /api/v1/websites → 500');
    expect(describeFailure('create', server, { excludeIps: longList }).reason).toMatch(
      /^POST \/api\/v1\/websites → 500; exclude_ips is likely too long \([\d,]+ bytes sent; the service's columns hold [\d,]+ bytes\)$/,
    );
    expect(describeFailure('create', server, { excludeIps: ['10.0.0.1'] })).toEqual({
      reason: 'POST /api/v1/websites → 500',
      code: 'server',
    });
    const invalid = new SitesyncError('validation', 'POST /api/v1/websites → 422: exclude_ips: too long');
    expect(describeFailure('create', invalid, { excludeIps: longList })).toEqual({
      reason: 'POST /api/v1/websites → 422: exclude_ips: too long',
      code: 'validation',
    });
  });
});
